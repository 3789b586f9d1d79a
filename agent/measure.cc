#include "agent/measure.h"

#include <optional>

#include "agent/kernel_output.h"
#include "agent/perf_counters.h"
#include "agent/workload.h"

namespace ktune {
namespace {

constexpr size_t kExcerptBytes = 2048;

WorkloadOptions OptionsFor(const MeasurePlan& plan, const PlanVariant& v,
                           const Canceller& canceller) {
  WorkloadOptions o;
  o.canceller = &canceller;
  o.path = v.elf;
  o.args = v.args;
  o.cwd = plan.tree_dir;
  o.cpu = plan.cpu;
  o.timeout_ns = plan.timeout_ns;
  return o;
}

std::string Excerpt(const std::string& text) {
  return text.size() <= kExcerptBytes ? text : text.substr(text.size() - kExcerptBytes);
}

// A repetition; std::nullopt when the canceller cut it short.
std::optional<RepetitionRow> MeasureOnce(const MeasurePlan& plan,
                                         const std::vector<EventSpec>& counted, size_t index,
                                         uint32_t pass, uint32_t repetition,
                                         const Canceller& canceller, std::string* excerpt) {
  const PlanVariant& v = plan.variants[index];
  RepetitionRow row;
  row.run_id = plan.run_id;
  row.variant_index = static_cast<uint32_t>(index);
  row.variant = v.name;
  row.elf = v.elf;
  row.params = v.params;
  row.pass = pass;
  row.repetition = repetition;

  MeasuredValue wall{kWallTime, 0, "ns", 0, 0, ValueStatus::kMissing};
  MeasuredValue kernel{kKernelTime, 0, "s", 0, 0, ValueStatus::kMissing};
  std::vector<MeasuredValue> counters;

  OutputScanner scanner;
  WorkloadOptions options = OptionsFor(plan, v, canceller);
  options.on_output = [&scanner](std::string_view chunk) { scanner.Feed(chunk); };
  auto workload = Workload::Prepare(options);
  if (!workload.ok()) {
    row.outcome.kind = OutcomeKind::kLaunchFailed;
    *excerpt = workload.status().message();
    for (const EventSpec& e : counted) {
      counters.push_back({e.text, 0, e.def.unit, 0, 0, ValueStatus::kNotCounted});
    }
  } else {
    CounterGroup group = CounterGroup::Open(
        counted, workload->pid(),
        plan.multiplex ? CounterGroup::Grouping::kSeparate : CounterGroup::Grouping::kTogether);
    WorkloadResult r = workload->Run([&] { counters = group.Read(); });
    if (r.cancelled) return std::nullopt;
    scanner.Finish();
    row.timestamp_ns = r.start_unix_ns;
    row.outcome = r.outcome;
    if (r.outcome.kind == OutcomeKind::kLaunchFailed) {
      *excerpt = r.launch_error;
    } else {
      wall.value = static_cast<double>(r.wall_ns);
      wall.status = ValueStatus::kOk;
      if (auto t = scanner.kernel_time_s()) {
        kernel.value = *t;
        kernel.status = ValueStatus::kOk;
      }
      row.valid = r.outcome.kind == OutcomeKind::kExited && r.outcome.code == 0 &&
                  !scanner.reports_failure();
      if (!row.valid) *excerpt = Excerpt(r.output);
    }
  }
  row.values.push_back(wall);
  row.values.push_back(kernel);
  for (auto& c : counters) row.values.push_back(std::move(c));
  return row;
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

Status MeasurePlanRows(const MeasurePlan& plan, Journal& journal, const Canceller& canceller) {
  std::vector<std::vector<EventSpec>> counted;
  for (const auto& pass : plan.passes) counted.push_back(CountedEvents(pass));
  for (size_t i = 0; i < plan.variants.size(); ++i) {
    for (uint32_t pass = 0; pass < counted.size(); ++pass) {
      for (uint32_t w = 0; w < plan.warmup && !canceller.cancelled(); ++w) {
        auto workload = Workload::Prepare(OptionsFor(plan, plan.variants[i], canceller));
        if (workload.ok()) workload->Run();
      }
      for (uint32_t rep = 0; rep < plan.repetitions; ++rep) {
        std::string excerpt;
        std::optional<RepetitionRow> row =
            MeasureOnce(plan, counted[pass], i, pass, rep, canceller, &excerpt);
        if (!row) return Unavailable("agent is shutting down");
        journal.Append(std::move(*row), std::move(excerpt));
        KT_RETURN_IF_ERROR(journal.status());
        if (canceller.cancelled()) return Unavailable("agent is shutting down");
      }
    }
  }
  return Status::Ok();
}

}  // namespace ktune
