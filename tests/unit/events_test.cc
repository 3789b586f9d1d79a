#include <doctest/doctest.h>
#include <linux/perf_event.h>

#include "common/events.h"

namespace ktune {
namespace {

TEST_CASE("generic events resolve to perf's type and config") {
  auto cycles = ParseEventSpec("cycles");
  REQUIRE(cycles.ok());
  CHECK(cycles->def.type == PERF_TYPE_HARDWARE);
  CHECK(cycles->def.config == PERF_COUNT_HW_CPU_CYCLES);
  CHECK(ParseEventSpec("task-clock")->def.config == PERF_COUNT_SW_TASK_CLOCK);
  CHECK(ParseEventSpec("task-clock")->def.unit == "ns");
  CHECK(ParseEventSpec("page-faults")->def.type == PERF_TYPE_SOFTWARE);
  // Hardware-cache events encode cache | op << 8 | result << 16.
  auto l1 = ParseEventSpec("L1-dcache-load-misses");
  REQUIRE(l1.ok());
  CHECK(l1->def.type == PERF_TYPE_HW_CACHE);
  CHECK(l1->def.config == (PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                           (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)));
  CHECK(ParseEventSpec("LLC-loads")->def.config ==
        (PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16)));
  CHECK(ParseEventSpec("L1-dcache-prefetches").ok());
  CHECK(ParseEventSpec("dTLB-store-misses").ok());
  // perf lists no stores for the instruction cache.
  CHECK_FALSE(ParseEventSpec("L1-icache-stores").ok());
}

TEST_CASE("perf's aliases resolve; results keep the name as written") {
  auto e = ParseEventSpec("cpu-cycles");
  REQUIRE(e.ok());
  CHECK(e->def.name == "cycles");
  CHECK(e->text == "cpu-cycles");
  CHECK(ParseEventSpec("faults")->def.name == "page-faults");
  CHECK(ParseEventSpec("cs")->def.name == "context-switches");
  CHECK(ParseEventSpec("branch-instructions")->def.name == "branches");
}

TEST_CASE("modifiers select privilege levels as perf's do") {
  auto u = ParseEventSpec("instructions:u");
  REQUIRE(u.ok());
  CHECK_FALSE(u->exclude_user);
  CHECK(u->exclude_kernel);
  CHECK(u->exclude_hv);
  auto uk = ParseEventSpec("instructions:uk");
  CHECK_FALSE(uk->exclude_kernel);
  CHECK(uk->exclude_hv);
  auto plain = ParseEventSpec("instructions");
  CHECK_FALSE(plain->exclude_user);
  CHECK_FALSE(plain->exclude_kernel);
  CHECK_FALSE(ParseEventSpec("instructions:q").ok());
  CHECK_FALSE(ParseEventSpec("instructions:").ok());
}

TEST_CASE("raw codes are rHEX") {
  auto r = ParseEventSpec("r01c2:u");
  REQUIRE(r.ok());
  CHECK(r->def.type == PERF_TYPE_RAW);
  CHECK(r->def.config == 0x1c2);
  CHECK_FALSE(ParseEventSpec("rxyz").ok());
}

TEST_CASE("unknown events name the nearest catalog entries") {
  auto e = ParseEventSpec("cylces");
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().message().find("unknown event 'cylces'") != std::string::npos);
  CHECK(e.status().message().find("cycles") != std::string::npos);
}

TEST_CASE("event lists split on commas; defaults are perf stat's") {
  CHECK(SplitEventList("cycles, instructions:u")->size() == 2);
  CHECK_FALSE(SplitEventList("cycles,,x").ok());
  CHECK(DefaultEvents().front() == "task-clock");
  for (const auto& e : DefaultEvents()) CHECK_MESSAGE(ParseEventSpec(e).ok(), e);
}

}  // namespace
}  // namespace ktune
