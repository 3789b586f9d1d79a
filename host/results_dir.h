// Where khost keeps results: <root>/<kernel>/run/results/<run_id>.csv, one long-format file
// (common/results.h) per run, written row by row as the agent streams them.
#pragma once

#include <string>

#include "common/fs.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune {

// "20261122T031500Z-3fa2c1": UTC start time (so names sort by time) and 24 random bits.
std::string NewRunId();

std::string ResultsDir(const std::string& kernel_run_dir);

// Appends rows to one run's file, the header first. Each row is written as it arrives, so it
// survives khost being killed; Finish() fsyncs. (The agent's own copy is fsynced row by row.)
class ResultsWriter {
 public:
  static Result<ResultsWriter> Create(const std::string& path);
  Status Append(const RepetitionRow& row);
  Status Finish();
  const std::string& path() const { return path_; }

 private:
  ResultsWriter(std::string path, ScopedFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  ScopedFd fd_;
};

// The file of run `run_id`, or of the newest run when run_id is empty.
Result<std::string> FindRunFile(const std::string& kernel_run_dir, const std::string& run_id);

}  // namespace ktune
