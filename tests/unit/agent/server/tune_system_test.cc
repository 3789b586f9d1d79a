#include <doctest/doctest.h>

#include <filesystem>

#include "agent/server/tune_system.h"
#include "common/fs.h"
#include "common/strings.h"
#include "tests/unit/temp_dir.h"

namespace ktune::agent {
namespace {

using Lines = std::vector<std::string>;

struct Fixture {
  test::UnitTempDir dir;
  std::string root = dir / "root";
  std::string saved = dir / "tuned-system";
  void Put(const std::string& path, const std::string& text) {
    const std::filesystem::path p = root + "/" + path;
    REQUIRE(MakeDirs(p.parent_path().string()).ok());
    REQUIRE(WriteFileAtomic(p.string(), text).ok());
  }
  // The governors of cpu0, cpu1 and cpu2, boost, no_turbo.
  Lines Values() {
    Lines out;
    for (const char* file :
         {"cpu0/cpufreq/scaling_governor", "cpu1/cpufreq/scaling_governor",
          "cpu2/cpufreq/scaling_governor", "cpufreq/boost", "intel_pstate/no_turbo"}) {
      out.push_back(std::string(Trim(ReadFile(root + "/sys/devices/system/cpu/" + file).value())));
    }
    return out;
  }
  Lines Tune(bool reset) { return TuneSystem(root, saved, reset, true).value(); }
};

const std::string kCpu = "sys/devices/system/cpu/";

TEST_CASE("tune-system: only as root") {
  Fixture f;
  auto r = TuneSystem(f.root, f.saved, false, false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "tune-system needs agentd running as root");
}

TEST_CASE("tune-system: performance governors, boost off; --reset writes the old values back") {
  Fixture f;
  f.Put(kCpu + "online", "0-1\n");
  f.Put(kCpu + "cpu0/cpufreq/scaling_governor", "performance\n");
  f.Put(kCpu + "cpu1/cpufreq/scaling_governor", "powersave\n");
  f.Put(kCpu + "cpu2/cpufreq/scaling_governor", "powersave\n");  // offline: left alone
  f.Put(kCpu + "cpufreq/boost", "1\n");
  f.Put(kCpu + "intel_pstate/no_turbo", "0\n");

  CHECK(f.Tune(false) == Lines{"cpu1 governor: powersave -> performance", "boost: 1 -> 0",
                               "intel_pstate no_turbo: 0 -> 1"});
  CHECK(f.Values() == Lines{"performance", "performance", "powersave", "0", "1"});

  // Again: nothing to change, and the values first replaced are still the ones kept.
  CHECK(f.Tune(false) == Lines{"nothing to change: the governors are performance, boost off"});
  CHECK(f.Tune(true) == Lines{"cpu1 governor: performance -> powersave", "boost: 0 -> 1",
                              "intel_pstate no_turbo: 1 -> 0"});
  CHECK(f.Values() == Lines{"performance", "powersave", "powersave", "1", "0"});
  CHECK_FALSE(std::filesystem::exists(f.saved));
  CHECK(f.Tune(true) == Lines{"nothing to reset: tune-system has changed nothing here"});
}

TEST_CASE("tune-system: nothing to change without cpufreq") {
  Fixture f;
  f.Put(kCpu + "online", "0-1\n");
  CHECK(f.Tune(false) == Lines{"nothing to change: no cpufreq here"});
  CHECK_FALSE(std::filesystem::exists(f.saved));
}

}  // namespace
}  // namespace ktune::agent
