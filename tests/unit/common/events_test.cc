#include <doctest/doctest.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/event_tables.h"
#include "common/events.h"
#include "common/fs.h"

namespace ktune {
namespace {

TEST_CASE("generic events resolve to perf's type and config") {
  auto cycles = EventCatalog::Generic().Parse("cycles");
  REQUIRE(cycles.ok());
  CHECK(cycles->def.type == PERF_TYPE_HARDWARE);
  CHECK(cycles->def.config == PERF_COUNT_HW_CPU_CYCLES);
  CHECK(EventCatalog::Generic().Parse("task-clock")->def.config == PERF_COUNT_SW_TASK_CLOCK);
  CHECK(EventCatalog::Generic().Parse("task-clock")->def.unit == "ns");
  CHECK(EventCatalog::Generic().Parse("page-faults")->def.type == PERF_TYPE_SOFTWARE);
  // Hardware-cache events encode cache | op << 8 | result << 16.
  auto l1 = EventCatalog::Generic().Parse("L1-dcache-load-misses");
  REQUIRE(l1.ok());
  CHECK(l1->def.type == PERF_TYPE_HW_CACHE);
  CHECK(l1->def.config == (PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                           (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)));
  CHECK(EventCatalog::Generic().Parse("LLC-loads")->def.config ==
        (PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16)));
  CHECK(EventCatalog::Generic().Parse("L1-dcache-prefetches").ok());
  CHECK(EventCatalog::Generic().Parse("dTLB-store-misses").ok());
  // perf lists no stores for the instruction cache.
  CHECK_FALSE(EventCatalog::Generic().Parse("L1-icache-stores").ok());
}

TEST_CASE("perf's aliases resolve; results keep the name as written") {
  auto e = EventCatalog::Generic().Parse("cpu-cycles");
  REQUIRE(e.ok());
  CHECK(e->def.name == "cycles");
  CHECK(e->text == "cpu-cycles");
  CHECK(EventCatalog::Generic().Parse("faults")->def.name == "page-faults");
  CHECK(EventCatalog::Generic().Parse("cs")->def.name == "context-switches");
  CHECK(EventCatalog::Generic().Parse("branch-instructions")->def.name == "branches");
}

TEST_CASE("modifiers select privilege levels as perf's do") {
  auto u = EventCatalog::Generic().Parse("instructions:u");
  REQUIRE(u.ok());
  CHECK_FALSE(u->exclude_user);
  CHECK(u->exclude_kernel);
  CHECK(u->exclude_hv);
  auto uk = EventCatalog::Generic().Parse("instructions:uk");
  CHECK_FALSE(uk->exclude_kernel);
  CHECK(uk->exclude_hv);
  auto plain = EventCatalog::Generic().Parse("instructions");
  CHECK_FALSE(plain->exclude_user);
  CHECK_FALSE(plain->exclude_kernel);
  CHECK_FALSE(EventCatalog::Generic().Parse("instructions:q").ok());
  CHECK_FALSE(EventCatalog::Generic().Parse("instructions:").ok());
}

TEST_CASE("raw codes are rHEX") {
  auto r = EventCatalog::Generic().Parse("r01c2:u");
  REQUIRE(r.ok());
  CHECK(r->def.type == PERF_TYPE_RAW);
  CHECK(r->def.config == 0x1c2);
  CHECK_FALSE(EventCatalog::Generic().Parse("rxyz").ok());
}

TEST_CASE("unknown events name the nearest catalog entries") {
  auto e = EventCatalog::Generic().Parse("cylces");
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().message().find("unknown event 'cylces'") != std::string::npos);
  CHECK(e.status().message().find("cycles") != std::string::npos);
}

TEST_CASE("event lists split on commas") {
  CHECK(SplitEventList("cycles, instructions:u")->size() == 2);
  CHECK_FALSE(SplitEventList("cycles,,x").ok());
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

// The tables, read here independently of the generator: name -> code, per table directory.
std::map<std::string, uint64_t> ReadTable(const fs::path& dir) {
  std::map<std::string, uint64_t> firmware;
  for (const auto& e :
       json::parse(ReadFile(KTUNE_PMU_EVENTS "/riscv/riscv-sbi-firmware.json").value())) {
    firmware[e["EventName"]] = std::stoull(e["ConfigCode"].get<std::string>(), nullptr, 0);
  }
  std::map<std::string, uint64_t> out;
  for (const auto& f : fs::directory_iterator(dir)) {
    for (const auto& e : json::parse(ReadFile(f.path().string()).value())) {
      if (e.contains("ArchStdEvent")) {
        out[e["ArchStdEvent"]] = firmware.at(e["ArchStdEvent"]);
      } else if (e.contains("ConfigCode")) {
        out[e["EventName"]] = std::stoull(e["ConfigCode"].get<std::string>(), nullptr, 0);
      } else {
        // base 0, as perf reads them: "0x0000000a" is hex, the X60's "60" decimal
        out[e["EventName"]] = std::stoull(e["EventCode"].get<std::string>(), nullptr, 0);
      }
    }
  }
  return out;
}

TEST_CASE("every table event has the name and code of its JSON entry") {
  for (const char* core : {"spacemit/x60", "thead/c900-legacy", "sifive/u74", "sifive/bullet",
                           "andes/ax45", "starfive/dubhe-80"}) {
    CAPTURE(core);
    auto catalog = EventCatalog::For("riscv64", core);
    REQUIRE(catalog.ok());
    const auto expected = ReadTable(fs::path(KTUNE_PMU_EVENTS "/riscv") / core);
    REQUIRE(expected.size() > 5);
    for (const auto& [name, code] : expected) {
      CAPTURE(name);
      auto spec = catalog->Parse(name);
      REQUIRE(spec.ok());
      CHECK(spec->def.type == PERF_TYPE_RAW);
      CHECK(spec->def.config == code);
    }
  }
  // Spot checks against the files: decimal X60 codes, hex C900 codes, firmware ConfigCodes.
  auto x60 = EventCatalog::For("riscv64", "spacemit/x60");
  CHECK(x60->Parse("l2_miss")->def.config == 185);
  CHECK(x60->Parse("vector_inst:u")->def.config == 59);
  CHECK(
      EventCatalog::For("riscv64", "thead/c900-legacy")->Parse("L1_DCACHE_READ_MISS")->def.config ==
      0xd);
  CHECK(x60->Parse("FW_ILLEGAL_INSN")->def.config == 0x8000000000000004ull);
}

TEST_CASE("the seed's event names all resolve on the X60") {
  auto x60 = EventCatalog::For("riscv64", "spacemit/x60");
  REQUIRE(x60.ok());
  for (const char* e :
       {"u_mode_cycle:u", "eu_vfpu_full:u", "vidu_total_cycle:u", "vector_micro_op:u",
        "vector_load_inst:u", "vector_store_inst:u", "vector_inst:u", "l1d_load_miss:u",
        "l1d_load_access:u", "l1d_access:u", "l1d_miss:u", "l2_access:u", "l2_miss:u",
        "l2_load_access:u", "l2_store_access:u"}) {
    auto spec = x60->Parse(e);
    REQUIRE_MESSAGE(spec.ok(), e);
    CHECK(spec->def.source == "spacemit/x60");
    CHECK(spec->exclude_kernel);
  }
}

TEST_CASE("every alias names an event of its table with the code the other name has") {
  const auto bullet = ReadTable(fs::path(KTUNE_PMU_EVENTS "/riscv/sifive/bullet"));
  const auto u74 = ReadTable(fs::path(KTUNE_PMU_EVENTS "/riscv/sifive/u74"));
  for (const EventAlias& a : EventAliases()) {
    CAPTURE(a.name);
    auto catalog = EventCatalog::For("riscv64", a.table);
    REQUIRE(catalog.ok());
    auto spec = catalog->Parse(a.name);
    REQUIRE(spec.ok());
    CHECK(spec->def.name == a.target);
    CHECK(spec->text == a.name);
    CHECK_FALSE(std::string(a.reason).empty());
    // The alias is the older u74 table's name for the same code, or mainline's newer name.
    if (u74.count(a.name))
      CHECK(u74.at(a.name) == bullet.at(a.target));
    else
      CHECK(std::string(a.name) == "LONGLATENCY_INTERLOCK");
  }
  // Aliases belong to their table only.
  CHECK_FALSE(EventCatalog::For("riscv64", "spacemit/x60")->Parse("DATA_TLB_MISS").ok());
}

TEST_CASE("table names match without regard to case; unknown ones name the nearest") {
  auto c900 = EventCatalog::For("riscv64", "thead/c900-legacy");
  CHECK(c900->Parse("l1_icache_miss")->def.name == "L1_ICACHE_MISS");
  auto x60 = EventCatalog::For("riscv64", "spacemit/x60");
  auto bad = x60->Parse("l2_mis");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("for spacemit/x60") != std::string::npos);
  CHECK(bad.status().message().find("l2_miss") != std::string::npos);
  CHECK_FALSE(EventCatalog::For("riscv64", "acme/z1").ok());
  CHECK(EventCatalog::For("riscv64", "acme/z1").status().message().find("spacemit/x60") !=
        std::string::npos);
}

TEST_CASE("which events a machine has: generic everywhere, firmware on RISC-V, the core's own") {
  CHECK_FALSE(EventCatalog::For("x86_64", "")->Parse("FW_IPI_SENT").ok());
  CHECK(EventCatalog::For("riscv64", "")->Parse("FW_IPI_SENT").ok());
  CHECK_FALSE(EventCatalog::For("riscv64", "")->Parse("l2_miss").ok());
  CHECK(EventCatalog::For("x86_64", "")->Parse("cycles").ok());
  // A core table listing the firmware events it supports does not list them twice.
  auto bullet = EventCatalog::For("riscv64", "sifive/bullet");
  CHECK(std::count_if(bullet->events().begin(), bullet->events().end(),
                      [](const EventDef& e) { return e.name == "FW_IPI_SENT"; }) == 1);
}

TEST_CASE("perf's mapfile chooses the table: the whole id must match, first row wins") {
  auto table = [](const std::string& arch, const std::string& id) {
    CpuId cpu;
    cpu.arch = arch;
    cpu.riscv_id = id;
    return MatchCoreTable(cpu);
  };
  CHECK(table("riscv64", "0x710-0x8000000058000001-0x1000000049772200") == "spacemit/x60");
  CHECK(table("riscv64", "0x5b7-0x0-0x0") == "thead/c900-legacy");
  CHECK(table("riscv64", "0x489-0x8000000000000007-0x4210427") == "sifive/bullet");
  CHECK(table("riscv64", "0x31e-0x8000000000008a45-0x500") == "andes/ax45");
  CHECK(table("riscv64", "0x0-0x0-0x0").empty());          // qemu's virt board
  CHECK(table("riscv64", "0x5b7-0x0-0x0-extra").empty());  // not the whole id
  CHECK(table("riscv64", "0x710-0x8000000058000001-0x").empty());
  CHECK(table("x86_64", "").empty());
  CpuId x60;
  x60.arch = "riscv64";
  x60.riscv_id = "0x710-0x8000000058000001-0x0";
  CHECK(EventCatalog::ForCpu(x60, "")->core() == "spacemit/x60");
  CHECK(EventCatalog::ForCpu(x60, "thead/c900-legacy")->core() == "thead/c900-legacy");
  // The tables are RISC-V cores': on another CPU their codes would count something else.
  CpuId amd;
  amd.arch = "x86_64";
  CHECK(EventCatalog::ForCpu(amd, "spacemit/x60").status().message() ==
        "CPU model spacemit/x60 is a RISC-V table; the agent's CPU is x86_64");
}

TEST_CASE("--cpu-model: a table's name, or the board's own id resolved as perf's mapfile does") {
  CHECK(*CoreTableNamed("spacemit/x60") == "spacemit/x60");
  // What a user copies from /proc/cpuinfo on a K1 (mvendorid, marchid, mimpid), any case.
  CHECK(*CoreTableNamed("0x710-0x8000000058000001-0x1000000049772200") == "spacemit/x60");
  CHECK(*CoreTableNamed("0X710-0X8000000058000001-0XABC") == "spacemit/x60");
  CHECK(*CoreTableNamed("0x5b7-0x0-0x0") == "thead/c900-legacy");
  CHECK(*CoreTableNamed("0x489-0x8000000000000007-0x4210427") == "sifive/bullet");
  // A row of perf's mapfile whose table was not copied (sifive/p550): said so, not "unknown".
  CHECK(CoreTableNamed("0x489-0x8000000000000008-0x1").status().message() ==
        "perf's mapfile maps the RISC-V core 0x489-0x8000000000000008-0x1 to an event table "
        "ktune does not have");
  // No row matches the whole id; the error names both forms.
  for (const char* bad : {"0x0-0x0-0x0", "0x710-0x8000000058000001-0x", "acme/z1", "x60"}) {
    const Status s = CoreTableNamed(bad).status();
    CHECK(s.code() == ErrorCode::kInvalidArgument);
    CHECK(s.message().find(std::string("no event table for CPU model '") + bad + "'") == 0);
    CHECK(s.message().find("spacemit/x60") != std::string::npos);
    CHECK(s.message().find("mvendorid-marchid-mimpid") != std::string::npos);
  }
}

TEST_CASE("perf's short names for the generic events, modifiers kept") {
  CHECK(ShortEventName("context-switches") == "cs");
  CHECK(ShortEventName("page-faults:u") == "faults:u");
  CHECK(ShortEventName("cpu-migrations") == "migrations");
  CHECK(ShortEventName("cycles") == "cycles");  // cpu-cycles is longer
  CHECK(ShortEventName("l2_miss") == "l2_miss");
}

}  // namespace
}  // namespace ktune
