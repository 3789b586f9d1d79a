// The tuning database: every run khost measures or imports, kept once and queried by the commands
// that answer without a run (khost best, khost db) and by those that reuse what was measured. One
// room behind this interface: the commands and the run service call it, nothing else touches its
// tables (host/db/schema.h). SQLite by default, PostgreSQL for a team, one schema and the same
// SQL on both (host/db/sql.h); docs/DATABASE.md describes the tables.
//
// Where it is: --db, else KTUNE_DB, else "db" in the config file, else
// $XDG_DATA_HOME/ktune/tuning.db (default ~/.local/share/ktune/tuning.db): one file per user,
// whatever directory a kernel was tuned in, because a board's measurement of an ELF holds
// wherever the ELF was built; data, not cache (XDG_CACHE_HOME may be wiped), since a
// measurement costs board time to make again.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/db/history.h"
#include "host/db/sql.h"
#include "host/results/results_dir.h"

namespace ktune::host {

struct DbChoice {
  std::string url;     // a PostgreSQL URL, or an SQLite file's path ("sqlite:" prefix optional)
  std::string source;  // "--db", "KTUNE_DB", the config file's path, "default"
};
// Pure: the database from the flag, the environment, the config file's "db" (its text, "" when
// there is none), else `default_path`.
Result<DbChoice> ChooseDb(const std::string& flag, const std::string& env,
                          const std::string& config_text, const std::string& config_path,
                          const std::string& default_path);
// $XDG_DATA_HOME/ktune/tuning.db, default ~/.local/share/ktune/tuning.db.
std::string DefaultDbPath();
bool IsPostgresUrl(const std::string& url);

// A variant's summary in a run (pure): the median of its kernel-time (the kernel's own timing) when
// every counted repetition printed one, else of its wall-time, in ns, with the 95% interval of
// the median when there are values enough (common/median.h); sampling rows are not counted. A
// failing repetition makes the variant failed with its reason: "NOT OK" for exit 0 with NOT OK
// printed, else the outcome ("exit:1", "signal:SIGSEGV", "timeout", "launch-failed"); "not
// measured" without rows, "no time" when no time was usable.
struct VariantResult {
  std::string status = "ok";  // "ok" or why not
  std::string metric = "";    // kernel-time or wall-time
  size_t n = 0;               // repetitions counted
  std::optional<double> median_ns;
  std::optional<double> ci_low_ns, ci_high_ns;
  int64_t measured_ns = 0;  // the start of its last repetition (Unix epoch)
  std::string run_id = "";  // its first row's run (a sweep's shard: the sweep's run)
};
VariantResult VariantResultOf(const std::vector<RepetitionRow>& rows, uint32_t variant_index);

// The one metric results of several variants or runs are compared by (pure): kernel-time when at
// least half of the `total` have it (`with_kernel_time`), else wall-time.
const char* ComparedMetric(size_t with_kernel_time, size_t total);

// The key under which a variant's measurement may stand for another's (pure): the ELF's content,
// its argv and test data, the shape, the board's CPU fingerprint, and the run's method (the
// events measured and the settings that change the numbers, RunMeta::method). "" when one of
// them is unknown (a run from before they were kept): never reused.
std::string ReuseKey(const std::string& elf_hash, const std::vector<std::string>& args,
                     const std::string& test_data_hash, const Params& shape,
                     const std::string& board, const std::string& method);

// What the database holds, for khost db.
struct DbContents {
  std::string backend, location;
  int schema_version = 0;
  int64_t runs = 0, measurements = 0, results = 0;
  struct Kernel {
    std::string name;
    int64_t runs = 0, configs = 0, boards = 0, shapes = 0;
    int64_t last_ns = 0;  // its newest run's start
  };
  std::vector<Kernel> kernels;
};

// One configuration's best evidence, as khost best answers.
struct BestEntry {
  std::string config, shape, board, cpu, run_id, metric;
  double median_ns = 0;
  std::optional<double> ci_low_ns, ci_high_ns;
  int64_t n = 0, measured_ns = 0;
};
struct BestQuery {
  std::string kernel;
  std::string board = "";  // an agent's name or a CPU fingerprint; "": the kernel's newest run's
  Params shape = {};       // empty: any (the newest run's shape when it had one)
  bool shape_given = false;
  size_t top = 1;  // how many configurations to list
};
struct BestAnswer {
  // "same board and shape", "same board, nearest shape", "another board, same shape", "another
  // board, nearest shape": which fallback answered (Kernel Launcher's wisdom order).
  std::string fallback;
  std::string board, board_source;  // the board asked for, and how it was chosen
  Params shape;                     // the shape answered for
  std::vector<BestEntry> entries;   // fastest first; per configuration its newest result
  int64_t results_read = 0;         // of the kernel, every board and shape
};

// How far a measured shape is from the one asked (pure): the sum over the asked dimensions (by
// name, in any order) of |log2(measured) - log2(asked)|, 0 at the shape asked; dimensions the
// asker did not name (RUN_COUNT) do not count. nullopt when the measured shape lacks an asked
// dimension, or one that is not a positive number differs.
std::optional<double> ShapeDistance(const Params& measured, const Params& asked);
// A shape measured, and how many configurations were measured at it.
struct MeasuredShape {
  Params shape;
  size_t configs = 0;
};
// Which of `measured` answers for `asked` (pure): the nearest by ShapeDistance; of equally near
// ones, the one with the most configurations (the most evidence, and where a space's constraints
// follow the shape, the one that admits the most tiles), then the first. measured.size() when
// none is comparable.
size_t NearestShape(const std::vector<MeasuredShape>& measured, const Params& asked);
// Each configuration's newest entry (pure), of one metric (ComparedMetric), fastest first.
std::vector<BestEntry> NewestPerConfig(std::vector<BestEntry> entries);

struct HistoryQuery {
  std::string kernel;
  std::string board = "";  // as BestQuery's
  Params shape = {};       // as BestQuery's
  bool shape_given = false;
  Params config = {};  // NAME=VALUE pairs that pick one configuration; empty: the newest best
};

struct Reusable {
  std::string run_id;
  uint32_t variant_index = 0;
  int64_t measured_ns = 0;
  size_t n = 0;
};

// One of a board's roofline ceilings as the database keeps it (host/roofline turns them into the
// model of host/report/roofline.h).
struct CeilingRow {
  std::string kind;         // "compute", "memory" or "stream"
  std::string name;         // "fp32 vector 32 B", "L2", "copy L1"
  std::string precision;    // compute: "fp32" or "fp64"; else ""
  int64_t size_bytes = 0;   // memory and stream: the level's capacity, 0 for DRAM
  double value = 0;         // GFLOP/s for compute, GB/s for the others
  std::string run_id;       // the run that measured it
  int64_t measured_ns = 0;  // when (Unix epoch)
};

class TuningDb {
 public:
  // Opens (and, with create, makes) the database and brings its schema up to date.
  static Result<std::unique_ptr<TuningDb>> Open(const DbChoice& where, bool create = true);

  const std::string& location() const { return sql_->location(); }
  const char* backend() const { return sql_->backend(); }

  // Every value of `rows` (the long CSV's lines) into measurements; a line held already is left
  // as it is. Returns the lines new.
  Result<size_t> AddRows(const std::vector<RepetitionRow>& rows);
  // The run: its metadata, its variants, their results (VariantResultOf of `rows`, all of the
  // run's rows) and every line of `rows`, in one transaction. Recording a run again updates it.
  // `host`: the machine khost ran on. Returns the lines new.
  Result<size_t> RecordRun(const RunMeta& meta, const std::vector<RepetitionRow>& rows,
                           const std::string& host);

  Result<DbContents> Contents();
  Result<BestAnswer> Best(const BestQuery& q);

  // The newest measurement with reuse key `key` (not "") that may stand for a new one: its
  // variant measured ok, in at least `min_n` repetitions, no earlier than `since_ns` (Unix
  // epoch); nullopt when there is none (reuse.cc).
  Result<std::optional<Reusable>> FindReusable(const std::string& key, int64_t since_ns,
                                               size_t min_n);
  // khost history: the results of the kernel on a board (ChooseBoard) at a shape (asked, or the
  // newest), of one configuration (its NAME=VALUE pairs must pick one) or of the newest best
  // (history.cc).
  Result<History> HistoryOf(const HistoryQuery& q);

  // A board's roofline ceilings at a thread count (khost roofline): recorded ones replace what
  // the board had at that count; read back by kind, the levels smallest first and DRAM last
  // (none: empty).
  Status RecordCeilings(const std::string& board, int64_t threads,
                        const std::vector<CeilingRow>& rows);
  Result<std::vector<CeilingRow>> CeilingsOf(const std::string& board, int64_t threads);
  // The thread counts `board` has ceilings for, fewest first.
  Result<std::vector<int64_t>> CeilingThreads(const std::string& board);

  // Every row of a run's variant as it was recorded (its values in their order).
  Result<std::vector<RepetitionRow>> RowsOf(const std::string& run_id, uint32_t variant_index);

 private:
  explicit TuningDb(std::unique_ptr<SqlConnection> sql) : sql_(std::move(sql)) {}
  // The board asked (by agent name or fingerprint; "" when it has no run of the kernel) or the
  // kernel's newest run's, and how it was chosen; NotFound when the kernel has no run.
  Status ChooseBoard(const std::string& kernel, const std::string& board, std::string* chosen,
                     std::string* source);
  // The shape of the newest result of the kernel on the board (none: empty).
  Result<Params> NewestShape(const std::string& kernel, const std::string& board);
  std::unique_ptr<SqlConnection> sql_;
};

// khost's version and the commit it was built from, as runs record it.
std::string KtuneVersion();
// This machine's host name, as runs record where khost ran.
std::string ThisHost();

}  // namespace ktune::host
