#include "host/results_dir.h"

#include <sodium.h>
#include <time.h>

#include <filesystem>

#include "common/fs.h"

namespace ktune {
namespace fs = std::filesystem;

std::string NewRunId() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc;
  gmtime_r(&ts.tv_sec, &utc);
  char when[32];
  strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &utc);
  if (sodium_init() < 0) return when;
  char rnd[8];
  std::snprintf(rnd, sizeof rnd, "%06x", randombytes_uniform(1u << 24));
  return std::string(when) + "-" + rnd;
}

std::string ResultsDir(const std::string& kernel_run_dir) { return kernel_run_dir + "/results"; }

Result<ResultsWriter> ResultsWriter::Create(const std::string& path) {
  KT_RETURN_IF_ERROR(MakeDirs(fs::path(path).parent_path().string()));
  if (fs::exists(path)) return InvalidArgument(path + " already exists");
  KT_RETURN_IF_ERROR(AppendDurably(path, std::string(kResultsHeader) + "\n"));
  return ResultsWriter(path);
}

Status ResultsWriter::Append(const RepetitionRow& row) { return AppendDurably(path_, ToCsvLines(row)); }

Result<std::string> FindRunFile(const std::string& kernel_run_dir, const std::string& run_id) {
  const std::string dir = ResultsDir(kernel_run_dir);
  if (!run_id.empty()) {
    const std::string path = dir + "/" + run_id + ".csv";
    if (!fs::exists(path)) return NotFound("no run " + run_id + " in " + dir);
    return path;
  }
  std::string newest;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".csv" && e.path().filename().string() > newest) {
      newest = e.path().filename().string();
    }
  }
  if (newest.empty()) return NotFound("no results in " + dir + " (run `khost run` first)");
  return dir + "/" + newest;
}

}  // namespace ktune
