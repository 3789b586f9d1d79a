#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "agent/server/system_check.h"
#include "common/fs.h"
#include "tests/unit/common/system_check_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::agent {
namespace {

// Writes `text` to <root>/<path>, making its directories.
void Put(const test::UnitTempDir& root, const std::string& path, const std::string& text) {
  const std::filesystem::path p = root.path() / path;
  REQUIRE(MakeDirs(p.parent_path().string()).ok());
  REQUIRE(WriteFileAtomic(p.string(), text).ok());
}

const std::string kCpu = "sys/devices/system/cpu/";

TEST_CASE("system check: every file of a fixture tree read into its field") {
  test::UnitTempDir root;
  Put(root, kCpu + "online", "0-1\n");
  Put(root, kCpu + "cpu1/cpufreq/scaling_governor", "powersave\n");
  Put(root, kCpu + "cpu1/cpufreq/scaling_min_freq", "800000\n");
  Put(root, kCpu + "cpu1/cpufreq/scaling_max_freq", "3600000\n");
  Put(root, kCpu + "cpu1/cpufreq/scaling_cur_freq", "1200000\n");
  Put(root, kCpu + "cpu0/cpufreq/scaling_governor", "performance\n");
  Put(root, kCpu + "cpufreq/boost", "1\n");
  Put(root, kCpu + "isolated", "\n");
  Put(root, kCpu + "nohz_full", "(null)\n");  // what kernels say for none
  Put(root, kCpu + "cpu1/topology/thread_siblings_list", "1,3\n");
  // The caches in index order, read until an index is missing (index5 is not read).
  const std::vector<std::vector<std::string>> caches = {{"1", "Data", "48K"},
                                                        {"1", "Instruction", "32K"},
                                                        {"2", "Unified", "1280K"},
                                                        {"3", "Unified", "12288K"}};
  for (size_t i = 0; i < caches.size(); ++i) {
    const std::string index = kCpu + "cpu1/cache/index" + std::to_string(i) + "/";
    Put(root, index + "level", caches[i][0] + "\n");
    Put(root, index + "type", caches[i][1] + "\n");
    Put(root, index + "size", caches[i][2] + "\n");
  }
  Put(root, kCpu + "cpu1/cache/index5/size", "1K\n");
  // The zones in numeric order (10 after 2), without what is not a zone.
  Put(root, "sys/class/thermal/thermal_zone10/type", "broken\n");
  Put(root, "sys/class/thermal/thermal_zone0/type", "acpitz\n");
  Put(root, "sys/class/thermal/thermal_zone0/temp", "40000\n");
  Put(root, "sys/class/thermal/thermal_zone2/type", "x86_pkg_temp\n");
  Put(root, "sys/class/thermal/thermal_zone2/temp", "91500\n");
  Put(root, "sys/class/thermal/cooling_device0/type", "Fan\n");
  Put(root, "proc/sys/kernel/randomize_va_space", "2\n");
  Put(root, "proc/loadavg", "1.90 0.50 0.20 3/200 4242\n");
  // procs_running counts the reader: 2 others.
  Put(root, "proc/stat", "cpu  1 2 3\nprocs_running 3\nprocs_blocked 0\n");
  test::CheckSameSystem(ReadSystemCheck(root.path().string(), 1), test::NoisyCheck());

  // Not pinned: CPU 0's settings.
  const SystemCheck any = ReadSystemCheck(root.path().string(), -1);
  CHECK(any.cpu == -1);
  CHECK(any.governor == "performance");
  CHECK_FALSE(any.smt_siblings.has_value());
  CHECK_FALSE(any.caches.has_value());
}

TEST_CASE("system check: missing files are unknown, never errors") {
  test::UnitTempDir root;
  SystemCheck unknown;
  unknown.cpu = 3;
  test::CheckSameSystem(ReadSystemCheck(root.path().string(), 3), unknown);
}

TEST_CASE("system check: intel_pstate's no_turbo when there is no cpufreq/boost; bad numbers") {
  test::UnitTempDir root;
  Put(root, kCpu + "intel_pstate/no_turbo", "1\n");
  Put(root, kCpu + "cpu0/cpufreq/scaling_cur_freq", "fast\n");
  Put(root, "proc/loadavg", "\n");
  CHECK(ReadSystemCheck(root.path().string(), 0).boost == false);
  CHECK_FALSE(ReadSystemCheck(root.path().string(), 0).cur_freq_khz);
  CHECK_FALSE(ReadSystemCheck(root.path().string(), 0).load_1min);
  Put(root, kCpu + "intel_pstate/no_turbo", "0\n");
  CHECK(ReadSystemCheck(root.path().string(), 0).boost == true);
}

}  // namespace
}  // namespace ktune::agent
