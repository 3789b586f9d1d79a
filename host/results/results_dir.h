// Where khost keeps results: <root>/<kernel>/run/results/<run_id>.csv, one long-format file
// (common/results.h) per run, written row by row as the agent streams them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/racing.h"
#include "common/results.h"
#include "common/status.h"
#include "common/system_check.h"
#include "host/events/event_groups.h"
#include "host/results/kernel_dir.h"

namespace ktune::host {

// "20261122T031500.123Z-3fa2c1": UTC start time to the millisecond (so names sort by time) and
// 24 random bits.
std::string NewRunId();

std::string ResultsDir(const std::string& kernel_run_dir);
// <kernel_run_dir>/results/<run_id>.csv: the run's results file.
std::string ResultsPath(const std::string& kernel_run_dir, const std::string& run_id);

// A sweep's shard n is the run <run_id>_<n> on its agent (NewRunId never holds '_'), and its
// rows carry that id; RunOfShard undoes it ("" -> "", a run id stays itself).
std::string ShardRunId(const std::string& run_id, size_t n);
std::string RunOfShard(const std::string& id);

// <results file without .csv>.request.pb: a sweep's whole request, which its shards are cut
// from, kept for khost run --resume.
std::string RunRequestPath(const std::string& results_path);

// The rows of a results file as one row per repetition (the same run id -- a shard's, in a
// sweep -- variant, pass and repetition). A repetition's lines need not be next to each other: one
// the file held in part (khost or the machine died mid-row, or the file was cut) is completed
// where the agent's replay appends what it lacked. A value that a repetition holds already, and
// the lines of another measurement of it (another start time or outcome), are duplicates: the
// first is kept, the others dropped and counted (`duplicate_lines`, with the first's line number,
// counting the header as line 1). Pure.
struct MergedRows {
  std::vector<RepetitionRow> rows;  // in the order their first line came
  size_t duplicate_lines = 0;
  size_t first_duplicate_line = 0;  // 0: none
};
MergedRows MergeRepetitions(const std::vector<RepetitionRow>& rows);

// Appends rows to one run's file (OpenResultsForAppend: created with its header, or, for a run
// fetched or resumed, keeping its rows, merged as MergeRepetitions does, and losing a torn last
// line but no whole one: the agent's replay completes a repetition held in part). Each row is
// written as it arrives, so it survives khost being killed. What is present is decided per value:
// of a repetition the file holds, only the values it lacks are written. Finish() fsyncs. (The
// agent's own copy is fsynced row by row.)
class ResultsWriter {
 public:
  // What Append did with a row.
  enum class Stored {
    kNew,        // the file did not hold its repetition: every line written
    kCompleted,  // the file held part of it: the values it lacked written
    kHeld,       // the file held all of it (this measurement or another): nothing written
    // The file holds part of another measurement of it (another start or outcome), which the
    // row cannot complete: nothing written, the file's kept.
    kConflicting,
  };
  static Result<ResultsWriter> Open(const std::string& path);
  Result<Stored> Append(const RepetitionRow& row);
  Status Finish();
  const std::string& path() const { return path_; }
  // One per repetition, in the order of their first lines in the file.
  const std::vector<RepetitionRow>& rows() const { return rows_; }
  uint64_t dropped_bytes() const { return dropped_bytes_; }  // of a torn last line, cut
  // The duplicate lines the file held when opened (MergeRepetitions), dropped from rows().
  size_t duplicate_lines() const { return duplicate_lines_; }
  size_t first_duplicate_line() const { return first_duplicate_line_; }

 private:
  ResultsWriter(std::string path, ResultsAppend file);
  std::string path_;
  ScopedFd fd_;
  std::vector<RepetitionRow> rows_;
  std::map<std::pair<std::string, RowKey>, size_t> index_;  // run id and key -> rows_ index
  uint64_t dropped_bytes_ = 0;
  size_t duplicate_lines_ = 0, first_duplicate_line_ = 0;
};

// The files <dir>/<id>.csv named by ids NewRunId made (runs' results, searches), oldest first:
// such names sort by time. None when the directory is missing.
std::vector<std::string> IdFilesIn(const std::string& dir);

// <dir>/<id>.csv, which must be there, or the newest of IdFilesIn(dir) when id is empty. NotFound
// names it as `what` ("no run ID in DIR"), or says `none` when dir holds no such file.
Result<std::string> FindIdFile(const std::string& dir, const std::string& id,
                               const std::string& what, const std::string& none);

// The file of run `run_id`, or of the newest run when run_id is empty.
Result<std::string> FindRunFile(const std::string& kernel_run_dir, const std::string& run_id);

// What a run was asked for, kept as <run_id>.json beside its results: reports need the metric
// formulas, and people the agent and CPU.
struct RunMeta {
  struct Metric {
    std::string name, formula, group;
  };
  std::string run_id;
  std::string kernel;
  std::string agent;                   // address
  std::string cpu;                     // DescribeCpu of the agent's CPU
  std::string core;                    // event table used, "" for generic events only
  std::vector<std::string> requested;  // --events as given (groups and events)
  std::vector<std::string> events;     // what was measured
  std::vector<Metric> metrics;
  std::vector<std::vector<std::string>> passes;  // the agent's plan: events per pass
  std::string plan;                              // how: "probed", "remembered", ...
  bool complete = false;                         // every row of the plan is in the results file
  // A sweep over several agents (khost run --agents, host/measure/sweep.h): the agents as given,
  // and the shards the variants were cut into, each measured as a run of its own on one agent.
  struct Shard {
    std::string id;                  // the agent's run id: <run_id>_<n>
    std::vector<uint32_t> variants;  // the run's variant indices, in the shard's order
    std::string agent;               // where it went ("" not yet)
    // pending, measuring, done; moved: its unfinished variants went to another shard; merged:
    // moved, and then its journal fetched whole from its agent
    std::string state;
  };
  std::vector<std::string> agents = {};
  std::vector<Shard> shards = {};
  // The order of the repetitions: "interleaved" (rounds shuffled by `seed`) or "sequential";
  // runs written before interleaving read as sequential, seed 0.
  std::string order = "sequential";
  uint64_t seed = 0;
  // khost run --reps auto (common/racing.h): its options (max_reps is the cap); fixed --reps and
  // runs from before it: none.
  std::optional<RacingOptions> adaptive = {};
  uint64_t cooldown_ms = 0;
  int64_t max_temp_mc = 0;  // khost run --max-temp, in millidegrees C; 0: not watched
  // The agent's system check as the run started (its first agent's, in a sweep); runs written
  // before it have none.
  std::optional<SystemCheck> system = std::nullopt;
  // What changes the numbers besides the ELF (whose hash, parameters, shape and board every row
  // carries), by which the tuning database keys reuse (host/db/tuning_db.h ReuseKey): the run's
  // method (the events measured and the settings that change the numbers: MethodKey in
  // host/measure/run_request.h) and each variant's argv and test data hash, by variant index.
  // And what built the variants: configs.json's "build" (KernelDir::build), with "measured_by",
  // the khost that measured (version and commit). Runs written before these have them empty.
  std::string method = "";
  struct Inputs {
    std::vector<std::string> args;
    std::string test_data_hash;
    VariantWork work = {};  // one call's work, as configs.json gave it (KernelVariant::work)
  };
  std::vector<Inputs> inputs = {};
  std::map<std::string, std::string> build = {};
  // The variants not measured by this run but reused from the tuning database (a measurement of
  // the same ELF, inputs, board and method, host/db/tuning_db.h): their rows are in the run's
  // file under the run id that measured them.
  struct Reused {
    uint32_t variant = 0;
    std::string run_id;
    int64_t measured_ns = 0;  // its last repetition's start
  };
  std::vector<Reused> reused = {};
};

// <results file without .csv>.json
std::string RunMetaPath(const std::string& results_path);
// The metadata as its file's JSON text (the tuning database keeps it too), and back (`where`
// names the text in errors).
std::string RunMetaJson(const RunMeta& meta);
Result<RunMeta> ParseRunMeta(const std::string& text, const std::string& where);
Status WriteRunMeta(const std::string& path, const RunMeta& meta);
Result<RunMeta> ReadRunMeta(const std::string& path);

// Pure: a sweep's rows without those a later measurement of the same variant supersedes. A variant
// that several of `meta`'s shards list was moved: cut short on an agent that dropped out, it was
// measured again whole in a new shard (and its first shard's journal may have been merged later).
// Of such a variant only the rows of the last of its shards that holds any row of it count; the
// rows of its other shards stay in the file (nothing measured is lost) but are not read as the
// run's. Rows under another run's id (reused from the tuning database) are never superseded.
// Returns how many rows were dropped from `rows`.
size_t DropSuperseded(const RunMeta& meta, std::vector<RepetitionRow>& rows);

// A stored run as reports read it: its rows, and its metadata and metric formulas when the
// metadata file is there.
struct LoadedRun {
  std::string path;                 // the results file
  std::vector<RepetitionRow> rows;  // merged (MergeRepetitions)
  size_t torn_lines = 0;
  size_t duplicate_lines = 0, first_duplicate_line = 0;
  size_t superseded_rows = 0;  // of variants moved and measured again (DropSuperseded)
  std::optional<RunMeta> meta;
  std::vector<MetricDef> metrics;
};
// The metric definitions a run's metadata names; `where` (its path) names it in errors.
Result<std::vector<MetricDef>> MetricDefsOf(const RunMeta& meta, const std::string& where);

// `run` is a run id of the kernel, the path of a results file (ending in .csv), or "" for the
// newest run. A run without rows is an error ("holds no results").
Result<LoadedRun> LoadRun(const std::string& kernel_run_dir, const std::string& run);

// What a reader of the run should know, one sentence each: that it is not complete (and how to
// complete it), that its file ends in a torn line, that it holds duplicate lines or superseded
// repetitions. Every command
// that reads a stored run says them.
std::vector<std::string> RunWarnings(const LoadedRun& run);

}  // namespace ktune::host
