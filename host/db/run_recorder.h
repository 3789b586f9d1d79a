// Records runs into the tuning database (host/db/tuning_db.h) as their rows arrive, for the run
// service (host/measure/run_service.h), and never stops a run: the first error (the database
// cannot be opened, is locked past its timeout, is damaged, its server is down) is said in one
// line naming it -- the run's rows stay in its results file, and `khost db import ROOT` adds them
// later -- and nothing more is tried for that command. Rows are kept and written together at
// most every kFlushIntervalNs, not one transaction each; the run's metadata, variants and
// results when it ends.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/db/tuning_db.h"
#include "host/results/results_dir.h"

namespace ktune::host {

inline constexpr int64_t kFlushIntervalNs = 250'000'000;

class RunRecorder {
 public:
  // `where`: the database (nullopt: record nothing); `command` ("khost run") and `root` (for
  // `khost db import ROOT`) are for the error line. Opens it at once, so a database that cannot
  // be used is said before the run starts.
  RunRecorder(std::string command, std::optional<DbChoice> where, std::string root);

  // A row as it arrives (thread-safe).
  void Row(const RepetitionRow& row);
  // The run as it ended: what is pending first, then the run with every row of it.
  void Run(const RunMeta& meta, const std::vector<RepetitionRow>& rows);
  // The rows pending, written now (a run cut short).
  void Flush();

  // The database, while it takes writes; null when none was asked or it failed.
  TuningDb* db() { return failed_ ? nullptr : db_.get(); }
  bool failed() const { return failed_; }
  // Says `s` (a read of the database failed, e.g. for reuse) and uses the database no more.
  void Fail(const Status& s);

 private:
  void FlushLocked();  // under mu_
  void FailLocked(const Status& s);

  std::mutex mu_;
  std::string command_, root_;
  std::unique_ptr<TuningDb> db_;
  bool failed_ = false;
  std::vector<RepetitionRow> pending_;
  std::chrono::steady_clock::time_point last_flush_ = {};
};

}  // namespace ktune::host
