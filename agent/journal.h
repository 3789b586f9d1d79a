// The agent's per-run results file (runs/<run_id>/results.csv). Rows are appended and fsynced on
// a thread of their own, in batches, so the disk's latency stays out of the measurement loop;
// each row is handed to `on_durable` (which sends it to the host) only after its fsync returned.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/fs.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune {

class Journal {
 public:
  using OnDurable = std::function<void(const RepetitionRow& row, const std::string& excerpt)>;

  // Opens (creating it with the header when new) the results file at `path`.
  static Result<std::unique_ptr<Journal>> Open(const std::string& path, OnDurable on_durable);
  ~Journal();

  // Queues a row; returns at once.
  void Append(RepetitionRow row, std::string excerpt);
  // The first write or fsync error so far (ok while none happened).
  Status status();
  // Writes everything queued, stops the writer thread, and returns status().
  Status Close();

 private:
  Journal(std::string path, ScopedFd fd, OnDurable on_durable);
  void Loop();

  struct Entry {
    RepetitionRow row;
    std::string excerpt;
  };
  const std::string path_;
  ScopedFd fd_;
  OnDurable on_durable_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> queue_;
  bool closing_ = false;
  Status error_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ktune
