// What a run measures and how, as khost run and khost tune --strategy ask an agent: the
// measurement settings (MeasureOptions), an agent's plan for them (its CPU, event table and the
// events --events selects there) and the RunRequest for a kernel directory's variants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/events.h"
#include "common/manifest.h"
#include "common/racing.h"
#include "common/status.h"
#include "host/events/event_groups.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "protocol/ktune.pb.h"

namespace ktune::host {

// --reps auto races every variant of a run against its one best, which variants at several
// problem shapes cannot share: what khost run and khost tune --strategy say to refuse it there.
inline constexpr const char* kAdaptiveShapes =
    "--reps auto races every variant against one best, which several shapes cannot share: give "
    "--reps N, or measure one shape at a time (--shape)";

// --reuse-age's default: a day. Long enough that a search or a run repeated within a working day
// measures only what changed; short enough that what the reuse key cannot see (the board's kernel
// and firmware, its cooling, its load) has had little time to change.
inline constexpr int64_t kDefaultReuseAgeS = 24 * 3600;

struct MeasureOptions {
  std::vector<std::string> events;
  uint32_t repetitions = 5;  // with adaptive: the cap (--max-reps)
  // --reps auto: rounds until each variant is settled or clearly slower (common/racing.h);
  // --min-reps, --max-reps (repetitions), --target-ci (a fraction), --max-time.
  std::optional<RacingOptions> adaptive;
  uint64_t max_time_ms = 0;
  uint64_t cooldown_ms = 0;  // --cooldown: idle before each repetition but the first
  int64_t max_temp_mc = 0;   // --max-temp (C): wait for the thermal zones to drop below it
  uint32_t warmup = 1;
  // --order: interleaved rounds, shuffled by the seed (agentd's agent/measure/schedule.h), or
  // variant after variant; --seed, else one drawn when the run starts (and kept in its meta).
  wire::RunOrder order = wire::RUN_ORDER_INTERLEAVED;
  std::optional<uint64_t> seed;
  uint64_t timeout_ms = 60000;
  int cpu = -1;
  std::string cpu_model;            // event table to use instead of the agent's detected one
  bool multiplex = false;           // all events at once, scaled as perf does, instead of passes
  std::vector<std::string> record;  // events to sample, in one more pass per variant
  uint64_t sample_period = 0;       // a sample every N events, or
  uint32_t sample_freq = 0;         // N samples per second (default 4001, as the seed)
  bool callchain = false;
  // Reuse from the tuning database (host/measure/run_service.h NewRun): a variant's measurement
  // at most this old stands for a new one; nullopt (--fresh): every variant is measured.
  std::optional<int64_t> reuse_age_s = kDefaultReuseAgeS;
};

// The reuse age a run measured with `options` reuses the tuning database's measurements within
// (pure): nullopt with --fresh, --reps auto (a race needs its rivals measured together) and
// --record (a reused variant would have no samples).
std::optional<int64_t> ReuseAge(const MeasureOptions& options);

// The request for the agent: every variant of `dir`, the options' measurement settings (pure).
wire::RunRequest MakeRunRequest(const MeasureOptions& options, const KernelDir& dir,
                                const std::string& bundle_id, const std::string& run_id);

// What an agent makes of the options.
struct AgentPlan {
  CpuId cpu;
  std::string core;  // the event table
  Selection selection;
};

// The metadata of a new run measured with `asked` (the events as given; `seed` the order's,
// drawn when none was given) under the agent's plan. The agent and CPU are the caller's to say.
RunMeta NewRunMeta(const std::string& run_id, const std::string& kernel,
                   const MeasureOptions& asked, uint64_t seed, const AgentPlan& plan);

// The run's method as the tuning database keys reuse by (pure): the events measured (`measured`'s
// events, the agent's plan), and the settings that change the numbers -- warm-up runs, the CPU,
// the event table, multiplexing, the order, cool-down and temperature limit. Repetitions,
// timeouts and sampling do not: a repetition measured under --reps 5 stands for one of --reps 9.
std::string MethodKey(const MeasureOptions& measured);

// Each variant's argv and the hash of its test data as `manifest` has them (pure): the files
// under the variant's test data directory (the kernel's run/test_data/ when it names none); and
// its work, as configs.json gives it.
std::vector<RunMeta::Inputs> VariantInputs(const KernelDir& dir, const Manifest& manifest);

// Checks the options against the agent that answered (its CPUs, perf_event_paranoid (said on
// stderr), event table, thermal zones) and the variants' architecture against the agent's.
Result<AgentPlan> PrepareAgent(const MeasureOptions& options, const KernelDir& dir,
                               const AgentSession& session);

}  // namespace ktune::host
