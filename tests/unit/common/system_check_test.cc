#include <doctest/doctest.h>

#include "common/system_check.h"
#include "tests/unit/common/system_check_fixture.h"

namespace ktune {
namespace {

TEST_CASE("system warnings: each threat in words, in a fixed order") {
  CHECK(SystemWarnings(test::NoisyCheck()) ==
        std::vector<std::string>{
            "CPU 1: governor powersave, not performance (khost agent tune-system NAME sets it)",
            "boost/turbo is on: the frequency follows load and temperature (khost agent "
            "tune-system NAME turns it off)",
            "thermal zone x86_pkg_temp is at 91.5 C: the CPU may throttle",
            "CPU 1 is not isolated (isolcpus/nohz_full): other tasks and timer ticks may run on it",
            "CPU 1's SMT sibling 3 is online: it shares the core's caches and pipelines",
            "2 other runnable tasks on the machine as the check ran (load 1.90 over the last "
            "minute on 2 CPUs)"});
}

TEST_CASE("system warnings: the last minute's load is said only when the runnable are unknown") {
  SystemCheck c = test::NoisyCheck();
  c.governor = "performance";
  c.boost = false;
  c.thermal_zones.clear();
  c.isolated = "1";
  c.smt_siblings = "1";
  c.aslr = 0;
  c.other_runnable = 0;  // a build ended a moment ago: its load, but nothing runnable now
  CHECK(SystemWarnings(c).empty());
  c.other_runnable = std::nullopt;
  CHECK(SystemWarnings(c) ==
        std::vector<std::string>{
            "load 1.90 over the last minute on 2 CPUs: other work competes with the kernels"});
  c.other_runnable = 1;
  c.load_1min = 0.5;
  CHECK(SystemWarnings(c) ==
        std::vector<std::string>{"1 other runnable task on the machine as the check ran"});
}

TEST_CASE("system warnings: none for a tuned, isolated, quiet CPU") {
  SystemCheck c = test::NoisyCheck();
  c.governor = "performance";
  c.boost = false;
  c.thermal_zones = {{"x86_pkg_temp", 84999}};
  c.isolated = "1";
  c.smt_siblings = "1";
  c.aslr = 0;
  c.load_1min = 0.99;
  c.other_runnable = 0;
  CHECK(SystemWarnings(c).empty());
  c.isolated = "";
  c.nohz_full = "1-3";  // nohz_full alone isolates it too
  CHECK(SystemWarnings(c).empty());
}

TEST_CASE("system warnings: unknown says nothing, but no cpufreq at all is said") {
  SystemCheck c;
  c.cpu = 2;
  CHECK(SystemWarnings(c) ==
        std::vector<std::string>{"no cpufreq on CPU 2: the kernel does not control its frequency "
                                 "here (a VM?), so it may vary unseen"});
  c.cur_freq_khz = 1000000;  // a frequency without a governor is cpufreq, its governor unknown
  CHECK(SystemWarnings(c).empty());
}

TEST_CASE("system warnings: a run not pinned says so, checks CPU 0, and not its isolation") {
  SystemCheck c = test::NoisyCheck();
  c.cpu = -1;
  c.smt_siblings = "0,2-3";
  const std::vector<std::string> w = SystemWarnings(c);
  REQUIRE(w.size() == 6);
  CHECK(w[0] == "the run is not pinned to a CPU (khost run --cpu N): the CPU checked is CPU 0");
  CHECK(w[1] ==
        "CPU 0: governor powersave, not performance (khost agent tune-system NAME sets it)");
  CHECK(w[4] == "CPU 0's SMT siblings 2,3 are online: they share the core's caches and pipelines");
  for (const std::string& s : w) CHECK(s.find("isolated") == std::string::npos);
}

}  // namespace
}  // namespace ktune
