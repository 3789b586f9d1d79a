// A one-line progress display on stderr ("variant 3/12 name rep 2/5  ETA 0:41"), redrawn in
// place, shown only when stderr is a terminal. Notes (one line each) are printed in either case.
#pragma once

#include <chrono>
#include <string>

namespace ktune::host {

class Progress {
 public:
  Progress(size_t total_steps, bool on_terminal);
  ~Progress() { Finish(); }

  // `done` of the total steps are complete; `what` describes the next one. The ETA assumes the
  // remaining steps take as long as the finished ones did on average.
  void Update(size_t done, const std::string& what);
  void SetTotal(size_t total_steps) { total_ = total_steps; }
  // Prints a line of its own, keeping the progress line below it.
  void Note(const std::string& line);
  void Finish();

 private:
  void Clear();
  size_t total_;
  bool on_terminal_;
  bool drawn_ = false;
  std::string last_;
  std::chrono::steady_clock::time_point start_;
};

// "1:05", "12:00:03": an ETA as people read it.
std::string FormatEta(double seconds);

}  // namespace ktune::host
