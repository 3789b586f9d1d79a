// What agentd reads about the machine around a measurement (agent/server/system_check.h reads
// it) and the warnings in words that khost shows for it, as pyperf's `system show` does: the
// measured CPU's cpufreq governor and frequencies, boost/turbo, thermal zones, isolation
// (isolcpus, nohz_full), its SMT siblings, ASLR, the load and the runnable tasks. Every field
// that could not be read is unknown (unset), never an error. Shared: the agent fills it, the
// protocol carries it (protocol/convert.h), khost keeps it in a run's metadata and says it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct ThermalZone {
  std::string type;                // e.g. "x86_pkg_temp", "cpu-thermal"
  std::optional<int64_t> temp_mc;  // millidegrees Celsius
};

struct SystemCheck {
  // The measured CPU; -1: the run is not pinned, and the CPU settings below are CPU 0's.
  int cpu = -1;
  std::optional<uint32_t> online_cpus;  // /sys/devices/system/cpu/online
  // The checked CPU's cpufreq (all unset: no cpufreq, the kernel does not set the frequency).
  std::optional<std::string> governor;
  std::optional<uint64_t> min_freq_khz, max_freq_khz, cur_freq_khz;
  std::optional<bool> boost;  // cpufreq/boost, or intel_pstate's turbo (no_turbo inverted)
  std::vector<ThermalZone> thermal_zones;
  // The kernel's CPU lists ("1-3,5"; "" none) of isolcpus and nohz_full.
  std::optional<std::string> isolated, nohz_full;
  // The checked CPU's SMT thread siblings, itself included ("1,3"), as topology lists them.
  std::optional<std::string> smt_siblings;
  // The checked CPU's caches as sysfs lists them (cpuN/cache/index*/): one word each,
  // "L<level><d, i or nothing for unified>:<size>", e.g. "L1d:32K L1i:32K L2:1024K L3:32768K";
  // unset when it lists none (qemu's virt board, a kernel without cacheinfo).
  std::optional<std::string> caches;
  std::optional<int> aslr;  // /proc/sys/kernel/randomize_va_space: 0 off, 1, 2 full
  std::optional<double> load_1min;
  // Runnable tasks on the whole machine besides the reader (/proc/stat procs_running - 1).
  std::optional<uint32_t> other_runnable;
};

// What can change while a run measures, read before each round: the measured CPU's current
// frequency and the hottest thermal zone (agent/server/system_check.h's ReadMachineState).
struct MachineState {
  std::optional<uint64_t> cur_freq_khz;
  std::optional<int64_t> hottest_mc;
};

// The hottest thermal zone's temperature; nullopt when no zone has one.
std::optional<int64_t> HottestZoneMc(const SystemCheck& check);

// Calls f(name, field...) for each optional field of a system check, with its name (as in a run's
// JSON metadata) and that field of each of `checks`: one list of the fields for whatever handles
// them all alike (khost's JSON, comparisons).
template <typename F, typename... Checks>
void ForEachOptional(F&& f, Checks&... checks) {
  f("online_cpus", checks.online_cpus...);
  f("governor", checks.governor...);
  f("min_freq_khz", checks.min_freq_khz...);
  f("max_freq_khz", checks.max_freq_khz...);
  f("cur_freq_khz", checks.cur_freq_khz...);
  f("boost", checks.boost...);
  f("isolated", checks.isolated...);
  f("nohz_full", checks.nohz_full...);
  f("smt_siblings", checks.smt_siblings...);
  f("caches", checks.caches...);
  f("aslr", checks.aslr...);
  f("load_1min", checks.load_1min...);
  f("other_runnable", checks.other_runnable...);
}

// A temperature for people: 45123 -> "45.1 C".
std::string FormatCelsius(int64_t temp_mc);

// Whether the checked CPU has cpufreq: the kernel sets its frequency (any of its files was read).
bool HasCpufreq(const SystemCheck& check);

// What threatens stable measurements, one sentence each: a governor other than performance, no
// cpufreq, boost on, a hot thermal zone, a CPU not isolated, an SMT sibling online, other
// runnable tasks (with the last minute's load beside them; the load alone only when they
// are unknown: a build that has just ended is no competitor), the run not pinned. Unknown fields
// say nothing.
std::vector<std::string> SystemWarnings(const SystemCheck& check);

}  // namespace ktune
