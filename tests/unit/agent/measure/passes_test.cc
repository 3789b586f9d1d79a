#include <doctest/doctest.h>
#include <stdlib.h>

#include <linux/perf_event.h>

#include <filesystem>
#include <set>

#include "agent/measure/passes.h"

namespace ktune::agent {
namespace {

Pass Events(const std::vector<std::string>& names) {
  auto catalog = EventCatalog::For("riscv64", "spacemit/x60").value();
  Pass out;
  for (const auto& n : names) out.push_back(catalog.Parse(n).value());
  return out;
}

std::vector<std::vector<std::string>> Names(const std::vector<Pass>& passes) {
  std::vector<std::vector<std::string>> out;
  for (const Pass& p : passes) {
    out.emplace_back();
    for (const EventSpec& e : p) out.back().push_back(e.text);
  }
  return out;
}

// The seed's eleven events on a core with (say) four counters.
const std::vector<std::string> kSeed = {
    "u_mode_cycle:u",     "eu_vfpu_full:u",      "vidu_total_cycle:u", "vector_micro_op:u",
    "vector_load_inst:u", "vector_store_inst:u", "vector_inst:u",      "l1d_load_miss:u",
    "l1d_load_access:u",  "l1d_access:u",        "l1d_miss:u"};

TEST_CASE("counted events split into passes of at most the budget, in order") {
  const auto passes = Names(SplitIntoPasses({}, Events(kSeed), 4));
  REQUIRE(passes.size() == 3);
  CHECK(passes[0] == std::vector<std::string>(kSeed.begin(), kSeed.begin() + 4));
  CHECK(passes[1] == std::vector<std::string>(kSeed.begin() + 4, kSeed.begin() + 8));
  CHECK(passes[2] == std::vector<std::string>(kSeed.begin() + 8, kSeed.end()));
}

TEST_CASE("free events ride in the first pass; budgets at the edges") {
  const Pass free = Events({"task-clock", "page-faults"});
  const auto passes = Names(SplitIntoPasses(free, Events({"cycles", "l2_miss", "l2_access"}), 2));
  CHECK(passes == std::vector<std::vector<std::string>>{
                      {"task-clock", "page-faults", "cycles", "l2_miss"}, {"l2_access"}});
  // A budget as large as the request, or none: one pass.
  CHECK(SplitIntoPasses(free, Events(kSeed), 11).size() == 1);
  CHECK(SplitIntoPasses(free, Events(kSeed), 0).size() == 1);
  CHECK(SplitIntoPasses(free, Events(kSeed), 1).size() == 11);
  // Nothing counted: the free events alone.
  CHECK(Names(SplitIntoPasses(free, {}, 3)) ==
        std::vector<std::vector<std::string>>{{"task-clock", "page-faults"}});
}

TEST_CASE("the fake budget splits software events too, so the path runs without a PMU") {
  const PassPlan plan = PlanPassesWithFakeBudget(Events({"task-clock", "page-faults", "cs"}), 2);
  CHECK(plan.how == "fake budget");
  CHECK(Names(plan.passes) ==
        std::vector<std::vector<std::string>>{{"task-clock", "page-faults"}, {"cs"}});
}

TEST_CASE("budgets are remembered per CPU model across restarts") {
  std::string dir = (std::filesystem::temp_directory_path() / "ktune-passes-XXXXXX").string();
  REQUIRE(::mkdtemp(dir.data()));
  const std::string path = dir + "/pmu-budgets";
  {
    BudgetMemory memory(path);
    CHECK(memory.Get("riscv64:0x710-0x8000000058000001-0x0") == -1);
    REQUIRE(memory.Put("riscv64:0x710-0x8000000058000001-0x0", 4).ok());
    REQUIRE(memory.Put("x86_64:AuthenticAMD-25-1", 6).ok());
  }
  BudgetMemory again(path);
  CHECK(again.Get("riscv64:0x710-0x8000000058000001-0x0") == 4);
  CHECK(again.Get("x86_64:AuthenticAMD-25-1") == 6);
  CHECK(again.Get("other") == -1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ktune::agent

namespace ktune::agent {
namespace {

// A FAKE PMU for the planner, since this machine has none: `capacity` events count together;
// events in `never` open but never count; events in `closed` do not open; `apart` names two
// events that count alone but never together (tied to one counter).
struct FakePmu {
  size_t capacity;
  std::set<std::string> never, closed;
  std::pair<std::string, std::string> apart;
  int probes = 0;
  PmuProbe Probe() {
    return {[this](const EventSpec& e) { return !closed.count(e.text); },
            [this](const Pass& p) {
              ++probes;
              size_t counted = 0;
              bool a = false, b = false;
              for (const EventSpec& e : p) {
                if (never.count(e.text) || closed.count(e.text)) return false;
                if (e.def.type != PERF_TYPE_SOFTWARE) ++counted;
                a = a || e.text == apart.first;
                b = b || e.text == apart.second;
              }
              return counted <= capacity && !(a && b);
            }};
  }
};

struct Memory {
  std::string dir = [] {
    std::string d = (std::filesystem::temp_directory_path() / "ktune-plan-XXXXXX").string();
    REQUIRE(::mkdtemp(d.data()));
    return d;
  }();
  BudgetMemory memory{dir + "/pmu-budgets"};
  ~Memory() { std::filesystem::remove_all(dir); }
};

TEST_CASE("the planner probes the budget, remembers it, and splits into passes that fit") {
  FakePmu pmu{4, {}, {}, {}};
  Memory m;
  const PassPlan plan = PlanPasses(Events(kSeed), "x60", m.memory, pmu.Probe());
  CHECK(plan.how == "probed");
  CHECK(plan.budget == 4);
  CHECK(Names(plan.passes) == Names(SplitIntoPasses({}, Events(kSeed), 4)));
  CHECK(m.memory.Get("x60") == 4);
  const PassPlan again = PlanPasses(Events(kSeed), "x60", m.memory, pmu.Probe());
  CHECK(again.how == "remembered");
  CHECK(again.passes.size() == 3);
}

TEST_CASE("software events and events that do not open ride in the first pass") {
  FakePmu pmu{2, {}, {"l2_miss"}, {}};
  Memory m;
  const PassPlan plan =
      PlanPasses(Events({"task-clock", "l2_miss", "cycles", "l2_access", "vector_inst"}), "x60",
                 m.memory, pmu.Probe());
  CHECK(Names(plan.passes) ==
        std::vector<std::vector<std::string>>{{"task-clock", "l2_miss", "cycles", "l2_access"},
                                              {"vector_inst"}});
}

TEST_CASE("an event that never counts does not set the budget, and gets a pass of its own") {
  FakePmu pmu{3, {"eu_vfpu_full:u"}, {}, {}};
  Memory m;
  const PassPlan plan =
      PlanPasses(Events({"eu_vfpu_full:u", "l2_miss", "l2_access", "cycles", "vector_inst"}), "x60",
                 m.memory, pmu.Probe());
  CHECK(plan.budget == 3);
  CHECK(m.memory.Get("x60") == 3);
  // Its pass of three did not count together, so it was split: the bad event stands alone.
  bool alone = false;
  for (const auto& p : Names(plan.passes))
    alone = alone || p == std::vector<std::string>{"eu_vfpu_full:u"};
  CHECK(alone);
}

TEST_CASE("no limit met means no budget remembered; the largest real budget is kept") {
  FakePmu roomy{8, {}, {}, {}};
  Memory m;
  const PassPlan plan = PlanPasses(Events({"cycles", "l2_miss"}), "x60", m.memory, roomy.Probe());
  CHECK(plan.passes.size() == 1);
  CHECK(m.memory.Get("x60") == -1);  // two fitted: only a lower bound
  REQUIRE(m.memory.Put("x60", 5).ok());
  REQUIRE(m.memory.Put("x60", 2).ok());
  CHECK(m.memory.Get("x60") == 5);
}

TEST_CASE("events tied to one counter are split apart even within the budget") {
  FakePmu pmu{4, {}, {}, {"l2_miss", "l2_access"}};
  Memory m;
  REQUIRE(m.memory.Put("x60", 4).ok());
  const PassPlan plan = PlanPasses(Events({"cycles", "l2_miss", "l2_access", "vector_inst"}), "x60",
                                   m.memory, pmu.Probe());
  CHECK(plan.how == "remembered");
  CHECK(Names(plan.passes) ==
        std::vector<std::vector<std::string>>{{"cycles", "l2_miss", "vector_inst"}, {"l2_access"}});
}

}  // namespace
}  // namespace ktune::agent
