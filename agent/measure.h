// Measures a run plan: for every variant, warm-up runs (not recorded), then repetitions, each a
// Workload (agent/workload.h) with a CounterGroup (agent/perf_counters.h) opened on it. Every
// repetition becomes one RepetitionRow: wall time, the kernel's self-reported time, task-clock
// and the requested events. The row is appended (fsynced) to the results file before the sink
// sees it, so a row that reached the host is always on the agent's disk too.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/events.h"
#include "common/results.h"
#include "common/status.h"
#include "agent/workload.h"

namespace ktune {

struct PlanVariant {
  std::string name;
  std::string elf;  // path inside the bundle tree
  std::vector<std::string> args;
  Params params;
};

struct MeasurePlan {
  std::string run_id;
  std::string tree_dir;  // working directory: holds <kernel>/run/...
  std::vector<PlanVariant> variants;
  std::vector<EventSpec> events;  // requested events; task-clock is always measured as well
  uint32_t repetitions = 5;
  uint32_t warmup = 1;
  uint64_t timeout_ns = 0;
  int cpu = -1;
};

// The events a repetition opens: task-clock first, then the requested ones (without a second
// task-clock).
std::vector<EventSpec> CountedEvents(const std::vector<EventSpec>& requested);

// Called after each row is on disk, with the tail of the workload's output for invalid runs.
using RowSink = std::function<void(const RepetitionRow& row, const std::string& output_excerpt)>;

// Measures the whole plan. Stops early (returning an error) only when the results file cannot be
// written, or when `canceller` fires; a repetition cut short by it is not recorded.
Status MeasurePlanRows(const MeasurePlan& plan, const std::string& results_path,
                       const RowSink& sink, const Canceller& canceller);

}  // namespace ktune
