#include "host/db/db_import.h"

#include <algorithm>
#include <filesystem>

#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"

namespace ktune::host {

namespace fs = std::filesystem;

namespace {

// The kernels of `root`: its directories holding run/results/, sorted.
std::vector<std::string> KernelsUnder(const std::string& root) {
  std::vector<std::string> kernels;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (fs::is_directory(e.path() / "run" / "results", ec)) {
      kernels.push_back(e.path().filename().string());
    }
  }
  std::sort(kernels.begin(), kernels.end());
  return kernels;
}

// The run's metadata, or what its file says when it has none: its id, the kernel.
RunMeta MetaOf(const LoadedRun& run, const std::string& kernel, const std::string& run_id) {
  if (run.meta) return *run.meta;
  RunMeta meta;
  meta.run_id = run_id;
  meta.kernel = kernel;
  return meta;
}

}  // namespace

Result<ImportSummary> ImportRoot(TuningDb& db, const std::string& root, const std::string& host) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return NotFound("khost db import: " + root + " is not a directory (ROOT holds <kernel>/run/)");
  }
  ImportSummary out;
  for (const std::string& kernel : KernelsUnder(root)) {
    Result<std::string> run_dir = RunDirBeneath(root, kernel);
    if (!run_dir.ok()) {
      out.skipped.push_back(kernel + ": " + run_dir.status().message());
      continue;
    }
    ++out.kernels;
    for (const std::string& path : IdFilesIn(ResultsDir(*run_dir))) {
      ImportRun(db, kernel, *run_dir, path, host, out);  // the file just listed, not looked up
    }
  }
  return out;
}

void ImportRun(TuningDb& db, const std::string& kernel, const std::string& run_dir,
               const std::string& path, const std::string& host, ImportSummary& out) {
  Result<LoadedRun> run = LoadRun(run_dir, path);
  if (!run.ok()) {
    out.skipped.push_back(path + ": " + run.status().message());
    return;
  }
  size_t lines = 0;
  for (const RepetitionRow& r : run->rows) lines += r.values.size();
  const std::string run_id = fs::path(path).stem().string();
  Result<size_t> added = db.RecordRun(MetaOf(*run, kernel, run_id), run->rows, host);
  if (!added.ok()) {
    out.skipped.push_back(path + ": " + added.status().message());
    return;
  }
  ++out.runs;
  out.lines_new += *added;
  out.lines_held += lines - std::min(lines, *added);
}

}  // namespace ktune::host
