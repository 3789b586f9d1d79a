// khost's result model and its reporters. BuildReport computes the model once from result rows
// (common/results.h); each renderer only formats it:
//   table       aligned console table, best variant marked
//   json        the model as JSON (host/report/json_model.h)
//   perf-stats  the seed's wide perf_stats.csv: Timestamp, ELF Name, <parameters>, Valid Output,
//               Kernel Time (s), Total Time (s), <one column per event>; times as %.6f, N/A
//               where a value is missing, NO in Valid Output for failed runs
// (The long-format CSV is the results file itself.)
//
// The run that sampled (--record) is left out: its numbers are perturbed by the sampling.
// Per variant and value, statistics are over the valid repetitions, or over all repetitions when
// none is valid (the table and JSON show those, labelled with the failure; perf-stats, which
// feeds analyses of valid rows, gives N/A). Event columns of perf-stats are medians; clocks are
// in msec as perf prints them. A value whose event shared a counter with others (time running <
// time enabled) carries its coverage, the smallest running/enabled over the sample; values are
// never scaled. Metrics (host/events/event_groups.h) are evaluated per variant from these medians
// (events of different passes come from different repetitions, so medians are what they share);
// a metric whose input is missing, or that divides by zero, says so instead of holding a number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/results.h"
#include "common/system_check.h"
#include "host/events/event_groups.h"
#include "host/report/machine_state.h"
#include "host/report/stats.h"
#include "host/report/table.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"

#include <map>

namespace ktune::host {

struct ValueSummary {
  std::string name;
  std::string unit;
  size_t counted = 0;  // repetitions in the sample with a value
  // kOk or kScaled (some values are perf-style estimates) when counted > 0, else why none.
  ValueStatus status = ValueStatus::kMissing;
  std::vector<double> sample;         // the values the statistics are over, in repetition order
  std::vector<uint32_t> repetitions;  // the repetition of each sample value
  std::optional<double> median, mean, min, max;
  std::optional<double> stddev, cv;  // host/report/stats.h: from two values on
  std::optional<Interval> ci;        // 95% of the median: from six values on
  std::vector<uint32_t> outliers;    // repetition numbers of the values flagged as outliers
  std::optional<double> coverage;    // set when some repetition ran on a counter part of the time
};

struct MetricSummary {
  std::string name;
  std::string group;
  std::optional<double> value;
  std::string problem;  // "missing input l2_miss:u", "division by zero"
};

struct VariantSummary {
  uint32_t index = 0;
  std::string name;
  std::string elf;
  Params params;
  Params shape;  // the problem shape it ran at (khost tune --shapes); empty: its rows had none
  size_t repetitions = 0;
  size_t valid = 0;
  std::string failure;  // "" when all valid, else the first failure: "signal:SIGSEGV", "NOT OK"
  int64_t first_timestamp_ns = 0;
  std::vector<ValueSummary> values;    // one per RunReport::value_names entry
  std::vector<MetricSummary> metrics;  // one per metric asked for
  VariantWork work{};  // one call's work, as the run's metadata has it (host/tune/kspec.h)

  const ValueSummary* Find(const std::string& name) const;
  // The value of parameter `name`; `missing` when this variant has none of that name.
  std::string Param(const std::string& name, const std::string& missing) const;
  bool all_valid() const { return repetitions > 0 && valid == repetitions; }
  // khost run --reps auto: why its measuring stopped (common/racing.h's StopReasonName), ""
  // for fixed repetitions.
  std::string stopped;
};

struct RunReport {
  std::string run_id;
  std::vector<std::string> param_names;  // in first-seen order
  std::vector<std::string> value_names;  // wall-time, kernel-time, then counters
  std::vector<std::string> metric_names;
  std::vector<VariantSummary> variants;  // by variant index
  std::optional<size_t> best;            // index into variants: fastest fully valid one
  // A run of several problem shapes (its variants' shapes differ) has no best across them: the
  // shapes' names (a column of the table), and the fastest fully valid variant of each shape,
  // in the order the shapes first appear among the variants (none for a shape without one).
  std::vector<std::string> shape_names;
  std::vector<std::pair<Params, std::optional<size_t>>> shape_best;
  // The value it was ranked by: kernel-time when every fully valid variant has it, else
  // wall-time.
  std::string best_by;
  // Said below the table: too few repetitions for the intervals, outliers among the times.
  std::vector<std::string> notes;
  // khost run --reps auto: how many rounds the variants got and why they stopped (also a note).
  std::string race;
  // The CPU's frequency and the hottest zone over the run (a note when they changed).
  MachineStateOverRun machine;
};

RunReport BuildReport(const std::vector<RepetitionRow>& rows,
                      const std::vector<MetricDef>& metrics = {});
// The report of a stored run: BuildReport of its rows and metrics, named by the run's own id (its
// first row may be of an earlier run, reused from the tuning database), each variant with the
// work its metadata gives.
RunReport BuildRunReport(const LoadedRun& run);

// pyperf's warning, for the variants whose `time` varies with a coefficient of variation above
// 10%: "noisy wall-time: a (CV 14.2%), b (CV 11.0%): ...". nullopt when none does.
std::optional<std::string> NoisyTimesNote(const RunReport& report, const std::string& time);

// A --reps auto run (its meta's `adaptive`): the race replayed from its rows (common/racing.h)
// says why each variant stopped; those still measuring in a complete run stopped for time. Sets
// each VariantSummary's `stopped` and the report's `race`, and notes it. Other runs: unchanged.
void AddRace(const LoadedRun& run, RunReport* report);

// The warnings of a run's system check (common/system_check.h) as notes under a table,
// "system: ..."; none for a run without one.
std::vector<std::string> SystemNotes(const std::optional<SystemCheck>& check);

// The report's main table: one row per variant, medians of every value and metric, the best
// variant marked; RenderTable is its console rendering.
Table ReportTable(const RunReport& report);
std::string RenderTable(const RunReport& report, bool colour = false, size_t width = 0);
}  // namespace ktune::host
