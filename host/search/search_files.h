// A search's files, beside the kernel's runs:
//
//   <root>/<kernel>/run/searches/<search_id>.csv    the evaluations (host/results/evaluations.h),
//                                                   a line appended and fsynced per evaluation
//   <root>/<kernel>/run/searches/<search_id>.json   {"argv": [...], "elapsed_s": S, "pending":
//                                                   {"run": ID, "configs": [[...], ...]}}: khost
//                                                   tune's arguments (--resume parses them again),
//                                                   the seconds the search has taken so far, and
//                                                   the batch being measured (its run, and its
//                                                   configurations in the run's variant order),
//                                                   present from before its run is asked until its
//                                                   evaluations are journaled; and "warm_start":
//                                                   {"configs": [[...], ...], "about": TEXT,
//                                                   "here": N}, the configurations asked first
//                                                   (host/search/warm_start.h), the first N of them
//                                                   measured at the shape searched (all of them
//                                                   when "here" is absent), so that --resume asks
//                                                   the same
//
// Search ids are run ids (host/results/results_dir.h NewRunId): they sort by start time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/status.h"
#include "host/results/evaluations.h"

namespace ktune::host {

std::string SearchesDir(const std::string& kernel_run_dir);
std::string SearchPath(const std::string& kernel_run_dir, const std::string& search_id);

struct SearchMeta {
  struct Batch {
    std::string run_id;
    std::vector<std::vector<int64_t>> configs;
  };
  std::vector<std::string> argv;
  double elapsed_s = 0;
  std::optional<Batch> pending;
  std::vector<std::vector<int64_t>> warm_start = {};
  std::string warm_about = "";
  size_t warm_here = 0;  // host/search/warm_start.h WarmStart::here
};
// <search file without .csv>.json, written atomically.
Status WriteSearchMeta(const std::string& search_path, const SearchMeta& meta);
Result<SearchMeta> ReadSearchMeta(const std::string& search_path);

// The search file of `search_id`, or of the newest search when it is empty.
Result<std::string> FindSearchFile(const std::string& kernel_run_dir, const std::string& search_id);

// The journal: created with its header, or opened to append to (a torn last line cut, as
// OpenLinesForAppend does), its evaluations read.
class SearchJournal {
 public:
  static Result<SearchJournal> Create(const std::string& path,
                                      const std::vector<std::string>& comments,
                                      const std::vector<std::string>& names);
  static Result<SearchJournal> Open(const std::string& path);
  // Appends the line and fsyncs it.
  Status Append(const Evaluation& e);
  const Evaluations& evaluations() const { return evaluations_; }
  const std::string& path() const { return path_; }

 private:
  SearchJournal(std::string path, ScopedFd fd, Evaluations e)
      : path_(std::move(path)), fd_(std::move(fd)), evaluations_(std::move(e)) {}
  std::string path_;
  ScopedFd fd_;
  Evaluations evaluations_;
};

}  // namespace ktune::host
