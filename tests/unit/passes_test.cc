#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>

#include "agent/passes.h"

namespace ktune {
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
}  // namespace ktune
