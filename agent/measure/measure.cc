#include "agent/measure/measure.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "agent/measure/kernel_output.h"
#include "agent/measure/perf_counters.h"
#include "agent/measure/run_clock.h"
#include "agent/measure/workload.h"

namespace ktune::agent {
namespace {

constexpr size_t kExcerptBytes = 2048;

WorkloadOptions OptionsFor(const MeasurePlan& plan, const PlanVariant& v,
                           const Canceller& canceller) {
  WorkloadOptions o;
  o.canceller = &canceller;
  if (plan.exec_wrapper.empty()) {
    o.path = v.elf;
    o.args = v.args;
  } else {
    o.path = plan.exec_wrapper[0];
    o.args.assign(plan.exec_wrapper.begin() + 1, plan.exec_wrapper.end());
    o.args.push_back(v.elf);
    o.args.insert(o.args.end(), v.args.begin(), v.args.end());
  }
  if (!v.test_data.empty()) o.env.push_back("KTUNE_TEST_DATA=" + plan.tree_dir + "/" + v.test_data);
  o.cwd = plan.work_dir.empty() ? plan.tree_dir : plan.work_dir;
  o.limits = plan.limits;
  o.user = plan.user;
  o.cpu = plan.cpu;
  o.timeout_ns = plan.timeout_ns;
  return o;
}

std::string Excerpt(const std::string& text) {
  return text.size() <= kExcerptBytes ? text : text.substr(text.size() - kExcerptBytes);
}

// A row naming the repetition, with nothing measured yet.
RepetitionRow NewRow(const MeasurePlan& plan, size_t index, uint32_t pass, uint32_t repetition,
                     bool sampling) {
  const PlanVariant& v = plan.variants[index];
  RepetitionRow row;
  row.run_id = plan.run_id;
  row.board = plan.board;
  row.variant_index = static_cast<uint32_t>(index);
  row.variant = v.name;
  row.elf = v.elf;
  row.elf_hash = v.elf_hash;
  row.params = v.params;
  row.shape = v.shape;
  row.pass = pass;
  row.sampling = sampling;
  row.repetition = repetition;
  return row;
}

// Runs `workload` with `counted` open on it as the plan groups them, read the moment it exits
// into `counters`. With `profile`, the plan's record events are sampled too: their counts join
// `counters` and their samples `profile` (unless the canceller cut the run short). The result's
// wall time is the kernel's, exec to exit (agent/measure/run_clock.h), where it could be taken;
// else the agent's, start byte to exit.
WorkloadResult RunCounted(const MeasurePlan& plan, const std::vector<EventSpec>& counted,
                          Workload& workload, std::vector<MeasuredValue>& counters,
                          Profile* profile) {
  CounterGroup group = CounterGroup::Open(
      counted, workload.pid(),
      plan.multiplex ? CounterGroup::Grouping::kSeparate : CounterGroup::Grouping::kTogether);
  Result<RunClock> clock = RunClock::Open(workload.pid());
  std::optional<Sampler> sampler;
  if (profile) sampler.emplace(Sampler::Open(plan.record, workload.pid(), plan.sampling));
  std::vector<int> watched = sampler ? sampler->poll_fds() : std::vector<int>{};
  if (clock.ok()) watched.push_back(clock->poll_fd());
  workload.Watch(std::move(watched), [&] {
    if (sampler) sampler->Drain();
    if (clock.ok()) clock->Drain();
  });
  WorkloadResult r = workload.Run([&] {
    counters = group.Read();
    if (!sampler) return;
    for (MeasuredValue& v : sampler->ReadCounts()) {
      const bool present = std::any_of(counters.begin(), counters.end(),
                                       [&](const MeasuredValue& c) { return c.name == v.name; });
      if (!present) counters.push_back(std::move(v));
    }
  });
  if (sampler && !r.cancelled) *profile = sampler->TakeProfile();
  if (clock.ok()) {
    clock->Drain();
    if (const std::optional<uint64_t> wall_ns = clock->wall_ns()) r.wall_ns = *wall_ns;
  }
  return r;
}

// How a run ended, into its row: the outcome, the wall time, the kernel's own time and whether
// the run is valid; a launch error, or an invalid run's output tail, is its excerpt.
void RecordOutcome(const WorkloadResult& r, const OutputScanner& scanner, RepetitionRow& row,
                   MeasuredValue& wall, MeasuredValue& kernel, std::string* excerpt) {
  row.timestamp_ns = r.start_unix_ns;
  row.outcome = r.outcome;
  if (r.outcome.kind == OutcomeKind::kLaunchFailed) {
    *excerpt = r.launch_error;
    return;
  }
  wall.value = static_cast<double>(r.wall_ns);
  wall.status = ValueStatus::kOk;
  if (auto t = scanner.kernel_time_s()) {
    kernel.value = *t;
    kernel.status = ValueStatus::kOk;
  }
  row.valid =
      r.outcome.kind == OutcomeKind::kExited && r.outcome.code == 0 && !scanner.reports_failure();
  if (!row.valid) *excerpt = Excerpt(r.output);
}

// A repetition; std::nullopt when the canceller cut it short. With `profile`, the plan's record
// events are sampled too: their counts join the row's values and their samples `profile`.
std::optional<RepetitionRow> MeasureOnce(const MeasurePlan& plan,
                                         const std::vector<EventSpec>& counted, size_t index,
                                         uint32_t pass, uint32_t repetition,
                                         const Canceller& canceller, std::string* excerpt,
                                         Profile* profile = nullptr) {
  RepetitionRow row = NewRow(plan, index, pass, repetition, profile != nullptr);
  MeasuredValue wall{kWallTime, 0, "ns", 0, 0, ValueStatus::kMissing};
  MeasuredValue kernel{kKernelTime, 0, "s", 0, 0, ValueStatus::kMissing};
  std::vector<MeasuredValue> counters;
  OutputScanner scanner;
  WorkloadOptions options = OptionsFor(plan, plan.variants[index], canceller);
  options.on_output = [&scanner](std::string_view chunk) { scanner.Feed(chunk); };
  auto workload = Workload::Prepare(options);
  if (!workload.ok()) {
    row.outcome.kind = OutcomeKind::kLaunchFailed;
    *excerpt = workload.status().message();
    for (const EventSpec& e : counted) {
      counters.push_back({e.text, 0, e.def.unit, 0, 0, ValueStatus::kNotCounted});
    }
  } else {
    WorkloadResult r = RunCounted(plan, counted, *workload, counters, profile);
    if (r.cancelled) return std::nullopt;
    scanner.Finish();
    RecordOutcome(r, scanner, row, wall, kernel, excerpt);
  }
  row.values.push_back(wall);
  row.values.push_back(kernel);
  for (auto& c : counters) row.values.push_back(std::move(c));
  return row;
}

// The unmeasured runs before a pass's repetitions.
void WarmUp(const MeasurePlan& plan, size_t variant, const Canceller& canceller) {
  for (uint32_t w = 0; w < plan.warmup && !canceller.cancelled(); ++w) {
    auto workload = Workload::Prepare(OptionsFor(plan, plan.variants[variant], canceller));
    if (workload.ok()) workload->Run();
  }
}

}  // namespace

std::vector<EventSpec> CountedEvents(const std::vector<EventSpec>& requested) {
  std::vector<EventSpec> out;
  out.push_back(EventCatalog::Generic().Parse(kTaskClock).value());
  for (const EventSpec& e : requested) {
    if (e.text != kTaskClock) out.push_back(e);
  }
  return out;
}

namespace {

// What every slot of a plan's measurement shares.
struct Measuring {
  const MeasurePlan& plan;
  std::vector<std::vector<EventSpec>> counted;  // per pass: CountedEvents
  Journal& journal;
  const Canceller& canceller;
  bool first = true;  // no repetition measured yet (the cool-down comes before the others)
  // The machine's state, read for the round of repetition `state_repetition`.
  std::optional<uint32_t> state_repetition;
  MachineState state;
};

// Idles `cooldown_ns` (not before the first repetition), then waits for the thermal zones to
// drop below max_temp_mc; both cut short by the canceller.
void CoolDown(Measuring& m) {
  const MeasurePlan& plan = m.plan;
  if (!m.first && plan.cooldown_ns > 0 && m.canceller.WaitFor(plan.cooldown_ns)) return;
  m.first = false;
  if (plan.max_temp_mc <= 0 || !plan.machine_state) return;
  constexpr uint64_t kPollNs = 500'000'000;
  for (uint64_t waited_ns = 0; waited_ns < kMaxCoolWaitNs; waited_ns += kPollNs) {
    const std::optional<int64_t> hottest = plan.machine_state().hottest_mc;
    if (!hottest || *hottest < plan.max_temp_mc || m.canceller.WaitFor(kPollNs)) return;
  }
}

// The machine's state as values of a row (those the machine has).
void AddMachineState(const MachineState& state, RepetitionRow& row) {
  if (state.cur_freq_khz) {
    row.values.push_back({kCpuFrequency, static_cast<double>(*state.cur_freq_khz) / 1e3, "MHz"});
  }
  if (state.hottest_mc) {
    row.values.push_back({kTemperature, static_cast<double>(*state.hottest_mc) / 1e3, "C"});
  }
}

// One slot of the schedule: its warm-up runs when it is its variant's pass's first, then the
// repetition (sampled when it is the sampling pass), into the journal and the race, if any. The
// machine's state is read when the slot starts a round (a new repetition index).
Status MeasureSlot(Measuring& m, const Slot& slot, Race* race) {
  // What is queued is written before the waits and warm-ups rather than after the next run.
  if (slot.warm_up || m.plan.cooldown_ns > 0 || m.plan.max_temp_mc > 0) m.journal.Flush();
  if (slot.warm_up) WarmUp(m.plan, slot.variant, m.canceller);
  CoolDown(m);
  if (m.plan.machine_state && m.state_repetition != slot.repetition) {
    m.state = m.plan.machine_state();
    m.state_repetition = slot.repetition;
  }
  std::string excerpt;
  std::optional<Profile> profile;
  if (slot.sampling) profile.emplace();
  std::optional<RepetitionRow> row = MeasureOnce(
      m.plan, slot.sampling ? CountedEvents({}) : m.counted[slot.pass], slot.variant, slot.pass,
      slot.sampling ? 0 : slot.repetition, m.canceller, &excerpt, profile ? &*profile : nullptr);
  if (!row) return Unavailable("agent is shutting down");
  AddMachineState(m.state, *row);
  if (race) race->Add(*row);
  m.journal.Append(std::move(*row), std::move(excerpt), std::move(profile));
  KT_RETURN_IF_ERROR(m.journal.status());
  if (m.canceller.cancelled()) return Unavailable("agent is shutting down");
  return Status::Ok();
}

// Adaptive repetitions: rounds of the variants still measuring until the race is done (a resumed
// run replays its journal's rows to find the race and the round to go on with), then the
// sampling round.
Status MeasureRace(Measuring& m) {
  const MeasurePlan& plan = m.plan;
  const ScheduleSpec spec = ScheduleOf(plan);
  Replayed replayed = ReplayRace(*plan.racing, spec.variants, spec.passes, m.journal.rows_before());
  Race& race = replayed.race;
  Warmed warmed;
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t round = replayed.next_round; !race.done(); ++round) {
    std::vector<bool> measuring(spec.variants);
    for (uint32_t v = 0; v < spec.variants; ++v) measuring[v] = race.measuring(v);
    for (const Slot& slot : InterleavedRound(spec, round, measuring, warmed)) {
      KT_RETURN_IF_ERROR(MeasureSlot(m, slot, &race));
    }
    race.EndRound(round);
    const auto spent = std::chrono::steady_clock::now() - start;
    if (plan.max_time_ns && spent >= std::chrono::nanoseconds(plan.max_time_ns)) {
      race.StopAll(StopReason::kTime);
    }
  }
  for (const Slot& slot : SamplingRound(spec, warmed)) {
    KT_RETURN_IF_ERROR(MeasureSlot(m, slot, nullptr));
  }
  return Status::Ok();
}

}  // namespace

ScheduleSpec ScheduleOf(const MeasurePlan& plan) {
  return {.variants = static_cast<uint32_t>(plan.variants.size()),
          .passes = static_cast<uint32_t>(plan.passes.size()),
          .repetitions = plan.repetitions,
          .sampling = !plan.record.empty(),
          .order = plan.order,
          .seed = plan.seed,
          .skip = plan.skip};
}

Status MeasurePlanRows(const MeasurePlan& plan, Journal& journal, const Canceller& canceller) {
  Measuring m{plan, {}, journal, canceller, true, std::nullopt, {}};
  for (const auto& pass : plan.passes) m.counted.push_back(CountedEvents(pass));
  if (plan.racing) return MeasureRace(m);
  for (const Slot& slot : Schedule(ScheduleOf(plan))) {
    KT_RETURN_IF_ERROR(MeasureSlot(m, slot, nullptr));
  }
  return Status::Ok();
}

}  // namespace ktune::agent
