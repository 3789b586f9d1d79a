// perf_event_open through CounterGroup, on real workloads. This machine may lack a hardware PMU
// (virtual machines often do): hardware events are then "not supported", which is checked; where
// they do open, they must count.
#include <doctest/doctest.h>

#include "agent/measure/passes.h"
#include "agent/measure/perf_counters.h"
#include "agent/measure/workload.h"
#include "tests/integration/harness.h"

namespace ktune::agent {
namespace {

std::vector<EventSpec> Specs(const std::vector<std::string>& names) {
  std::vector<EventSpec> out;
  for (const auto& n : names) out.push_back(EventCatalog::Generic().Parse(n).value());
  return out;
}

std::vector<MeasuredValue> Measure(const std::vector<EventSpec>& events, const std::string& ms) {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/ok.elf";
  o.args = {"", ms};
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  CounterGroup g = CounterGroup::Open(events, w->pid(), CounterGroup::Grouping::kTogether);
  WorkloadResult r = w->Run();
  REQUIRE(r.outcome.ToString() == "exit:0");
  return g.Read();
}

TEST_CASE("software events count from exec to exit, never multiplexed") {
  const auto v = Measure(Specs({"task-clock", "page-faults", "context-switches"}), "20");
  REQUIRE(v.size() == 3);
  CHECK(v[0].name == "task-clock");
  CHECK(v[0].status == ValueStatus::kOk);
  CHECK(v[0].value >= 20e6);  // the workload spins for 20 ms of CPU time
  CHECK(v[0].running_ns == v[0].enabled_ns);
  CHECK(v[1].status == ValueStatus::kOk);
  CHECK(v[1].value > 0);
  CHECK(v[2].status == ValueStatus::kOk);
}

TEST_CASE("hardware events are counted where a PMU exists, else not supported; the rest go on") {
  const auto specs = Specs({"task-clock", "cycles", "instructions:u", "LLC-load-misses"});
  const std::string probe = ProbeEvent(specs[1]);
  const auto v = Measure(specs, "5");
  CHECK(v[0].status == ValueStatus::kOk);
  for (size_t i = 1; i < v.size(); ++i) {
    if (probe.empty()) {
      CHECK_MESSAGE(v[i].status != ValueStatus::kNotSupported, v[i].name);
    } else {
      MESSAGE("no hardware PMU here (" << probe << "): checking 'not supported'");
      CHECK(v[i].status == ValueStatus::kNotSupported);
    }
  }
}

TEST_CASE("a raw code the PMU does not know is not supported, with the reason") {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/ok.elf";
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  CounterGroup g = CounterGroup::Open(Specs({"task-clock", "rffffffffffffffff"}), w->pid(),
                                      CounterGroup::Grouping::kSeparate);
  w->Run();
  const auto v = g.Read();
  CHECK(v[1].status == ValueStatus::kNotSupported);
  CHECK_FALSE(g.open_errors()[1].empty());
  CHECK(g.open_errors()[0].empty());
}

TEST_CASE("probing opens an event on the agent itself") {
  CHECK(ProbeEvent(EventCatalog::Generic().Parse("task-clock").value()).empty());
}

TEST_CASE("software events count together; an event that does not open never does") {
  CHECK(CountTogether(Specs({"task-clock", "page-faults", "context-switches"})));
  CHECK(CountTogether({}));
  CHECK_FALSE(CountTogether(Specs({"task-clock", "rffffffffffffffff"})));
}

TEST_CASE("the real planner: software events need no counters, unsupported ones stay in pass 1") {
  test::TempDir dir;
  BudgetMemory memory(dir.path() + "/budgets");
  const auto events = Specs({"task-clock", "page-faults", "cycles", "instructions"});
  const PassPlan plan = PlanPasses(events, "test:model", memory);
  if (!ProbeEvent(events[2]).empty()) {
    MESSAGE("no hardware PMU here: every event is free, one pass");
    CHECK(plan.how == "software only");
    REQUIRE(plan.passes.size() == 1);
    CHECK(plan.passes[0].size() == 4);
  } else {
    CHECK(plan.budget >= 1);
    size_t events_planned = 0;
    for (const auto& p : plan.passes) events_planned += p.size();
    CHECK(events_planned == events.size());
  }
}

}  // namespace
}  // namespace ktune::agent
