#include <doctest/doctest.h>
#include <regex.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/event_tables.h"
#include "common/fs.h"

namespace ktune {
namespace {

TEST_CASE("CPU lists: ranges and single CPUs; empty is none; malformed is nullopt") {
  CHECK(ParseCpuList("0-3,8,10-11\n") == std::set<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(ParseCpuList("5") == std::set<int>{5});
  CHECK(ParseCpuList("") == std::set<int>{});
  CHECK(ParseCpuList("\n") == std::set<int>{});
  for (const char* bad : {"a", "3-1", "-1", "1-", "1,,x"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseCpuList(bad).has_value());
  }
}

TEST_CASE("RISC-V identity is the first hart's mvendorid-marchid-mimpid") {
  auto text = ReadFile(KTUNE_TEST_DATA "/cpuinfo/riscv64-k1.txt");
  REQUIRE(text.ok());
  CpuId cpu;
  ParseCpuInfo(*text, &cpu);
  CHECK(cpu.riscv_id == "0x710-0x8000000058000001-0x1000000049772200");
  CHECK(cpu.model_name == "Spacemit(R) X60");
  CHECK(cpu.x86_vendor.empty());
}

TEST_CASE("x86 identity is vendor, family and model of the first processor") {
  auto text = ReadFile(KTUNE_TEST_DATA "/cpuinfo/x86_64.txt");
  REQUIRE(text.ok());
  CpuId cpu;
  ParseCpuInfo(*text, &cpu);
  CHECK(cpu.x86_vendor == "GenuineIntel");
  CHECK(cpu.x86_family == 6);
  CHECK(cpu.x86_model == 85);
  CHECK(cpu.riscv_id.empty());
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

TEST_CASE("the K1 fixture's identity selects the X60 table") {
  CpuId cpu;
  cpu.arch = "riscv64";
  ParseCpuInfo(ReadFile(KTUNE_TEST_DATA "/cpuinfo/riscv64-k1.txt").value(), &cpu);
  CHECK(MatchCoreTable(cpu) == "spacemit/x60");
  CHECK(DescribeCpu(cpu) ==
        "riscv64, 0x710-0x8000000058000001-0x1000000049772200 (Spacemit(R) X60)");
}

// MatchIdPattern stands in for glibc's regex in agentd: it must agree with regexec on every
// mapfile row, for ids that match each row and for ids one edit away from matching.
TEST_CASE("the id matcher agrees with POSIX regexec on every mapfile row") {
  std::vector<std::string> ids = {"0x710-0x8000000058000001-0x1000000049772200", "0x0-0x0-0x0", ""};
  for (const CpuMapping& m : CpuMappings()) {
    // An id the row matches: a class+ becomes "1f", a bracket its first character.
    std::string id = std::regex_replace(m.id_regex, std::regex(R"(\[\[:xdigit:\]\]\+)"), "1f");
    ids.push_back(std::regex_replace(id, std::regex(R"(\[(.)[^\]]*\])"), "$1"));
  }
  const size_t matching = ids.size();
  for (size_t k = 0; k < matching; ++k) {
    const std::string id = ids[k];
    for (size_t i = 0; i < id.size(); ++i) {
      for (char c : std::string("0179adefgx-"))
        ids.push_back(id.substr(0, i) + c + id.substr(i + 1));
      ids.push_back(id.substr(0, i));
    }
    ids.push_back(id + "0");
    ids.push_back(id + "-1");
  }
  size_t matched = 0;
  for (const CpuMapping& m : CpuMappings()) {
    regex_t re;
    REQUIRE_MESSAGE(regcomp(&re, ("^(" + std::string(m.id_regex) + ")$").c_str(),
                            REG_EXTENDED | REG_NOSUB) == 0,
                    m.id_regex);
    for (const std::string& id : ids) {
      const bool posix = regexec(&re, id.c_str(), 0, nullptr, 0) == 0;
      matched += posix;
      CHECK_MESSAGE(MatchIdPattern(m.id_regex, id) == posix, m.id_regex, " on ", id);
    }
    regfree(&re);
  }
  CHECK(matched >= CpuMappings().size());  // every row matched its own example at least
}

TEST_CASE("the id matcher: repetition, classes, and nothing outside its subset") {
  CHECK(MatchIdPattern("0x[[:xdigit:]]+", "0xdeadBEEF"));
  CHECK_FALSE(MatchIdPattern("0x[[:xdigit:]]+", "0x"));
  CHECK(MatchIdPattern("0x0*1", "0x1"));
  CHECK(MatchIdPattern("0x0*1", "0x0001"));
  CHECK(MatchIdPattern("a[0-9]+[0-9]", "a12"));  // backtracks into the repetition
  CHECK_FALSE(MatchIdPattern("a[0-9]+[0-9]", "a1"));
  CHECK(MatchIdPattern("[]a]", "]"));
  for (const char* outside : {"0x.", "(0x0)", "0x0|0x1", "[^0]", "0x0?", "0x[0", "[[:space:]]",
                              "[z-a]", "0x0{2}", "\\x"}) {
    CAPTURE(outside);
    CHECK_FALSE(MatchIdPattern(outside, "0x0"));
  }
}

TEST_CASE("a longer id matches no row whose regex matches only its prefix") {
  CpuId cpu;
  cpu.riscv_id = "0x710-0x8000000058000001-0x1000000049772200";
  CHECK(MatchCoreTable(cpu) == "spacemit/x60");
  cpu.riscv_id += "-1";
  CHECK(MatchCoreTable(cpu) != "spacemit/x60");
  cpu.riscv_id = "0x0-0x0-0x0";  // qemu's virt machine: no table
  CHECK(MatchCoreTable(cpu) == "");
}

}  // namespace
}  // namespace ktune
