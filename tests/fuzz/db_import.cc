// Fuzzes `khost db import` (host/db/db_import.h ImportRun, ImportRoot's import of each run): a
// run's results file and its metadata, files someone else may have written or cut short, read
// under a kernel directory and recorded into the tuning database (its variants, their summaries,
// every measured line). ImportRoot's listing of the kernel directories and run files and its
// path checks read no byte of a file, and are not fuzzed here (they are tested in
// tests/unit/host/db/db_import_test.cc and tests/unit/host/results/kernel_dir_test.cc).
//
// The database is one SQLite file, opened once (with the schema made and the statements khost
// prepares kept, as in a khost process that imports one root after another) and emptied before
// each input: every row of every table but the schema's version is deleted through a second
// connection of the target's own, so each input starts from a database as `khost db import`
// makes it. The same connection counts what the import recorded, from the tables themselves.
// A new file per input, copied from an empty one and opened, spent 0.4 ms of an input's 1.7 ms
// in opening it and preparing the statements again (docs/FUZZING.md).
//
// Input: the results file, then optionally a NUL byte and the run's metadata (its .json). They
// are written as <root>/k/run/results/<kRunId>.csv and .json, and the run is imported twice.
//
// Asserts, beyond no crash, no sanitizer report, no leak and no exception escaping:
// - the import goes through: the run is recorded or named as skipped, with why;
// - what was recorded is what the summary says: the database holds that many runs and lines;
// - importing again records nothing new (the import is idempotent): the same runs and skips, every
//   line held already, the database's counts unchanged.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/fs.h"
#include "host/db/db_import.h"
#include "host/db/sql.h"
#include "host/db/tuning_db.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

constexpr const char* kRunId = "20260101T000000.000Z-abcdef";

// The tuning database every input is imported into, open for the whole run.
ktune::host::TuningDb& Db() {
  static const std::unique_ptr<ktune::host::TuningDb> db = [] {
    auto opened = ktune::host::TuningDb::Open({ktune::FuzzScratchDir() + "/tuning.db", "fuzz"});
    FUZZ_CHECK_OK(opened);
    return std::move(*opened);
  }();
  return *db;
}

// What the database holds, as the target counts it.
struct Counts {
  int64_t runs = 0, measurements = 0, results = 0;
  bool operator==(const Counts&) const = default;
};

// The target's own connection to the database, khost's SQLite connection (host/db/sql.h: its
// statements prepared once and kept): it counts the rows of the three tables an import fills,
// and deletes every row of every table but ktune_schema's (the schema's version).
class SideConnection {
 public:
  explicit SideConnection(const std::string& path) {
    auto opened = ktune::host::OpenSqlite(path, /*create=*/false);
    FUZZ_CHECK_OK(opened);
    sql_ = std::move(*opened);
    auto tables = sql_->Query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'ktune_schema' AND "
        "name NOT LIKE 'sqlite_stat%'");
    FUZZ_CHECK_OK(tables);
    for (const ktune::host::SqlRow& table : *tables) {
      deletes_.push_back("DELETE FROM \"" + ktune::host::SqlString(table[0]) + "\"");
    }
    FUZZ_CHECK(deletes_.size() >= 4);
  }

  Counts Count() {
    auto rows = sql_->Query(
        "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM measurements), "
        "(SELECT count(*) FROM results)");
    FUZZ_CHECK(rows.ok() && rows->size() == 1);
    const ktune::host::SqlRow& row = rows->front();
    return {ktune::host::SqlInt(row[0]), ktune::host::SqlInt(row[1]), ktune::host::SqlInt(row[2])};
  }

  // Deletes, in one transaction, unless no other connection committed since the last time: SQLite
  // changes `PRAGMA data_version` for this connection exactly when another one committed (an
  // input that records nothing commits nothing), and the tables are then as this left them.
  void DeleteAllRows() {
    const int64_t version = DataVersion();
    if (version == emptied_at_) return;
    FUZZ_CHECK(sql_->Begin().ok());
    for (const std::string& sql : deletes_) FUZZ_CHECK(sql_->Query(sql).ok());
    FUZZ_CHECK(sql_->Commit().ok());
    emptied_at_ = DataVersion();
  }

 private:
  int64_t DataVersion() {
    auto rows = sql_->Query("PRAGMA data_version");
    FUZZ_CHECK(rows.ok() && rows->size() == 1);
    return ktune::host::SqlInt(rows->front()[0]);
  }

  std::unique_ptr<ktune::host::SqlConnection> sql_;
  std::vector<std::string> deletes_;
  int64_t emptied_at_ = -1;  // data_version when this last deleted every row
};

// The target's connection, made once.
SideConnection& Side() {
  static SideConnection side(Db().location());
  return side;
}

// Writes one of the input's files: in place, as nothing else reads it meanwhile (an atomic write
// took 5% of an input's time).
void WriteInput(const std::string& path, std::string_view bytes) {
  auto file = ktune::OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
  FUZZ_CHECK_OK(file);
  FUZZ_CHECK(ktune::WriteAll(file->get(), bytes, path).ok());
}

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
  WriteInput(results, input.substr(0, nul));
  const std::string meta = RunMetaPath(results);
  if (nul == std::string_view::npos) {
    ::unlink(meta.c_str());
  } else {
    WriteInput(meta, input.substr(nul + 1));
  }

  // The run directory, checked beneath the root once: ImportRoot's listing of the root and of
  // the results directory, and its path checks, read no byte of the input (they took a fifth
  // of an input's time); ImportRun reads both files.
  static const std::string run_dir = [&] {
    auto dir = RunDirBeneath(root, "k");
    FUZZ_CHECK_OK(dir);
    return *dir;
  }();
  Side().DeleteAllRows();
  TuningDb& db = Db();
  ImportSummary first;
  ImportRun(db, "k", run_dir, results, "fuzz-host", first);
  FUZZ_CHECK(first.runs + first.skipped.size() == 1);
  const Counts held = Side().Count();
  FUZZ_CHECK(held.runs == static_cast<int64_t>(first.runs));
  FUZZ_CHECK(held.measurements == static_cast<int64_t>(first.lines_new));

  ImportSummary second;
  ImportRun(db, "k", run_dir, results, "fuzz-host", second);
  FUZZ_CHECK(second.runs == first.runs && second.skipped == first.skipped);
  FUZZ_CHECK(second.lines_new == 0);
  FUZZ_CHECK(second.lines_held == first.lines_new + first.lines_held);
  FUZZ_CHECK(Side().Count() == held);
  return 0;
}
