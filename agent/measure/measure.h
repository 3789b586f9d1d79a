// Measures a run plan: every variant, in every pass of its events (agent/measure/passes.h), is
// measured `repetitions` times in the order of agent/measure/schedule.h (interleaved rounds by
// default), or in rounds until the variants are settled (adaptive repetitions), the first
// repetition of each variant's pass after its warm-up runs (not recorded); each repetition is a
// Workload (agent/measure/workload.h) with a CounterGroup (agent/measure/perf_counters.h) opened on
// it. Every repetition becomes one RepetitionRow: wall time (exec to exit as the kernel stamps it,
// agent/measure/run_clock.h), the kernel's self-reported time, task-clock and the requested
// events, handed to the run's Journal (agent/measure/journal.h), which makes it durable before it
// is sent.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/measure/journal.h"
#include "agent/measure/sampler.h"
#include "agent/measure/schedule.h"
#include "agent/measure/workload.h"
#include "common/events.h"
#include "common/racing.h"
#include "common/results.h"
#include "common/status.h"
#include "common/system_check.h"

namespace ktune::agent {

struct PlanVariant {
  std::string name;
  std::string elf;       // path inside the bundle tree
  std::string elf_hash;  // its content hash (the bundle's manifest)
  std::vector<std::string> args;
  Params params;
  Params shape;  // the problem shape it runs at, for its rows
  std::string
      test_data;  // its test data directory in the bundle's tree (KTUNE_TEST_DATA); "": none
};

struct MeasurePlan {
  std::string run_id;
  std::string board;     // this agent's CpuFingerprint, on every row
  std::string tree_dir;  // the bundle's tree: holds <kernel>/run/...
  std::string work_dir;  // the kernels' working directory (agent/measure/sandbox.h), or the tree's
  WorkloadLimits limits;
  std::optional<WorkloadUser> user;  // kernels run as this user
  std::vector<PlanVariant> variants;
  // The requested events, in passes; task-clock is measured in every pass as well.
  std::vector<std::vector<EventSpec>> passes = {{}};
  bool multiplex = false;  // one pass, its events multiplexed and scaled
  // Events to sample, in one more pass per variant (after the counting passes) with a single
  // repetition; its row carries the events' counts and its profile the samples.
  std::vector<EventSpec> record;
  SampleOptions sampling;
  uint32_t repetitions = 5;
  uint32_t warmup = 1;
  RunOrder order = RunOrder::kInterleaved;
  uint64_t seed = 0;  // shuffles the interleaved rounds (agent/measure/schedule.h)
  // Adaptive repetitions (khost run --reps auto): interleaved rounds until the race of
  // common/racing.h is done, `repetitions` being its cap (racing->max_reps); no new round starts
  // after max_time_ns of measuring (0: no limit; a resumed run gets it afresh).
  std::optional<RacingOptions> racing;
  uint64_t max_time_ns = 0;
  uint64_t cooldown_ns = 0;  // idle before each repetition but the first (khost run --cooldown)
  // The measured CPU's frequency and the hottest thermal zone (set by the server): read before
  // each round (each repetition in sequential order), their values join the round's rows
  // (common/results.h, kCpuFrequency and kTemperature) where the machine has them.
  std::function<MachineState()> machine_state;
  // khost run --max-temp: before each repetition, wait until the hottest thermal zone reads below
  // max_temp_mc, checking every 0.5 s, at most kMaxCoolWaitNs; a zone that cannot be read does
  // not wait. 0: not watched.
  int64_t max_temp_mc = 0;
  uint64_t timeout_ns = 0;
  int cpu = -1;
  std::vector<std::string> exec_wrapper;  // runs each ELF: wrapper... ELF ARGS (agent's option)
  // Rows already in the journal (a resumed run): not measured again. A variant's pass whose
  // repetitions are all there is not even warmed up.
  std::set<RowKey> skip;
};

// The longest --max-temp waits before a repetition is measured anyway: a zone stuck hot must not
// stall a run for good.
constexpr uint64_t kMaxCoolWaitNs = 300'000'000'000;

// The events a repetition opens: task-clock first, then the requested ones (without a second
// task-clock).
std::vector<EventSpec> CountedEvents(const std::vector<EventSpec>& requested);

// The plan's schedule: its variants, passes, repetitions, order, seed and rows already measured.
ScheduleSpec ScheduleOf(const MeasurePlan& plan);

// Measures the whole plan into `journal` (with each invalid run's output tail as its excerpt).
// Stops early, returning an error, when the journal fails or `canceller` fires; a repetition cut
// short by the canceller is not recorded.
Status MeasurePlanRows(const MeasurePlan& plan, Journal& journal, const Canceller& canceller);

}  // namespace ktune::agent
