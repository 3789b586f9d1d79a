// Where khost keeps results: <root>/<kernel>/run/results/<run_id>.csv, one long-format file
// (common/results.h) per run, written row by row as the agent streams them.
#pragma once

#include <string>

#include "common/results.h"
#include "common/status.h"

namespace ktune {

// "20261122T031500Z-3fa2c1": UTC start time (so names sort by time) and 24 random bits.
std::string NewRunId();

std::string ResultsDir(const std::string& kernel_run_dir);

// Appends rows to one run's file; the header is written on creation. Each Append is fsynced.
class ResultsWriter {
 public:
  static Result<ResultsWriter> Create(const std::string& path);
  Status Append(const RepetitionRow& row);
  const std::string& path() const { return path_; }

 private:
  explicit ResultsWriter(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The file of run `run_id`, or of the newest run when run_id is empty.
Result<std::string> FindRunFile(const std::string& kernel_run_dir, const std::string& run_id);

}  // namespace ktune
