// Fuzzes `khost db import` (host/db/db_import.h ImportRoot): a run's results file and its
// metadata, files someone else may have written or cut short, read under a kernel directory and
// recorded into the tuning database (its variants, their summaries, every measured line): an
// SQLite file, a new one per input, copied from an empty database made once (making the schema
// took half the time of an input).
//
// Input: the results file, then optionally a NUL byte and the run's metadata (its .json). They
// are written as <root>/k/run/results/<kRunId>.csv and .json, and the root is imported twice.
//
// Asserts, beyond no crash, no sanitizer report, no leak and no exception escaping:
// - the import goes through: the run is recorded or named as skipped, with why;
// - what was recorded is what the summary says: the database holds that many runs and lines;
// - importing again records nothing new (the import is idempotent): the same runs and skips, every
//   line held already, the database's counts unchanged.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/fs.h"
#include "host/db/db_import.h"
#include "host/db/tuning_db.h"
#include "host/results/results_dir.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

constexpr const char* kRunId = "20260101T000000.000Z-abcdef";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string root = FuzzScratchDir() + "/root";
  const std::string results = root + "/k/run/results/" + kRunId + ".csv";
  static const bool made = MakeDirs(root + "/k/run/results").ok();
  FUZZ_CHECK(made);
  FUZZ_CHECK(WriteFileAtomic(results, input.substr(0, nul)).ok());
  const std::string meta = RunMetaPath(results);
  if (nul == std::string_view::npos) {
    ::unlink(meta.c_str());
  } else {
    FUZZ_CHECK(WriteFileAtomic(meta, input.substr(nul + 1)).ok());
  }

  const std::string db_path = FuzzScratchDir() + "/tuning.db";
  static const std::string empty = [] {
    const std::string path = FuzzScratchDir() + "/empty.db";
    FUZZ_CHECK(TuningDb::Open({path, "fuzz"}).ok());  // closed again: its log checkpointed
    return path;
  }();
  for (const char* suffix : {"-wal", "-shm"}) ::unlink((db_path + suffix).c_str());
  std::error_code ec;
  std::filesystem::copy_file(empty, db_path, std::filesystem::copy_options::overwrite_existing, ec);
  FUZZ_CHECK(!ec);
  auto db = TuningDb::Open({db_path, "fuzz"});
  FUZZ_CHECK_OK(db);
  auto first = ImportRoot(**db, root, "fuzz-host");
  FUZZ_CHECK_OK(first);
  FUZZ_CHECK(first->kernels == 1 && first->runs + first->skipped.size() == 1);
  auto held = (*db)->Contents();
  FUZZ_CHECK_OK(held);
  FUZZ_CHECK(held->runs == static_cast<int64_t>(first->runs));
  FUZZ_CHECK(held->measurements == static_cast<int64_t>(first->lines_new));

  auto second = ImportRoot(**db, root, "fuzz-host");
  FUZZ_CHECK_OK(second);
  FUZZ_CHECK(second->runs == first->runs && second->skipped == first->skipped);
  FUZZ_CHECK(second->lines_new == 0);
  FUZZ_CHECK(second->lines_held == first->lines_new + first->lines_held);
  auto again = (*db)->Contents();
  FUZZ_CHECK_OK(again);
  FUZZ_CHECK(again->runs == held->runs && again->measurements == held->measurements &&
             again->results == held->results);
  return 0;
}
