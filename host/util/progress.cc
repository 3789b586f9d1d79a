#include "host/util/progress.h"

#include <cstdio>

namespace ktune::host {

std::string FormatEta(double seconds) {
  long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

Progress::Progress(size_t total_steps, bool on_terminal)
    : total_(total_steps), on_terminal_(on_terminal), start_(std::chrono::steady_clock::now()) {}

void Progress::Update(size_t done, const std::string& what) {
  if (!on_terminal_) return;
  std::string line = what;
  if (done > 0 && done < total_) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    line += "  ETA " +
            FormatEta(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done));
  }
  Clear();
  std::fprintf(stderr, "%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
  last_ = line;
}

void Progress::Note(const std::string& line) {
  Clear();
  std::fprintf(stderr, "%s\n", line.c_str());
  if (on_terminal_ && !last_.empty()) {
    std::fprintf(stderr, "%s", last_.c_str());
    drawn_ = true;
  }
  std::fflush(stderr);
}

void Progress::Finish() {
  Clear();
  last_.clear();
}

void Progress::Clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace ktune::host
