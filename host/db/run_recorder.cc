#include "host/db/run_recorder.h"

#include <iostream>

namespace ktune::host {

RunRecorder::RunRecorder(std::string command, std::optional<DbChoice> where, std::string root)
    : command_(std::move(command)), root_(std::move(root)) {
  if (!where) return;
  Result<std::unique_ptr<TuningDb>> db = TuningDb::Open(*where);
  if (!db.ok()) {
    FailLocked(db.status());
    return;
  }
  db_ = std::move(db).value();
}

void RunRecorder::Fail(const Status& s) {
  std::lock_guard<std::mutex> lock(mu_);
  FailLocked(s);
}

void RunRecorder::FailLocked(const Status& s) {
  if (failed_) return;
  failed_ = true;
  pending_.clear();
  std::cerr << command_ << ": the tuning database: " << s.message()
            << "; the run goes on without it, its rows are in its results file (khost db import "
            << root_ << " adds them)\n";
}

void RunRecorder::FlushLocked() {
  last_flush_ = std::chrono::steady_clock::now();
  if (pending_.empty() || !db_ || failed_) return;
  Result<size_t> added = db_->AddRows(pending_);
  pending_.clear();
  if (!added.ok()) FailLocked(added.status());
}

void RunRecorder::Row(const RepetitionRow& row) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!db_ || failed_) return;
  pending_.push_back(row);
  if (std::chrono::steady_clock::now() - last_flush_ >=
      std::chrono::nanoseconds(kFlushIntervalNs)) {
    FlushLocked();
  }
}

void RunRecorder::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  FlushLocked();
}

void RunRecorder::Run(const RunMeta& meta, const std::vector<RepetitionRow>& rows) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!db_ || failed_) return;
  pending_.clear();  // every row of the run is in `rows`
  if (auto added = db_->RecordRun(meta, rows, ThisHost()); !added.ok()) {
    FailLocked(added.status());
  }
}

}  // namespace ktune::host
