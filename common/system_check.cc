#include "common/system_check.h"

#include <cstdio>

#include "common/cpu.h"
#include "common/strings.h"

namespace ktune {
namespace {

// A thermal zone at or above this is near where CPUs throttle.
constexpr int64_t kHotTempMc = 85000;
// A 1-minute load at or above this means other work competes with the measured kernels.
constexpr double kBusyLoad = 1.0;

// Whether `cpu` is in `list`; false when the list is unknown or malformed.
bool InList(const std::optional<std::string>& list, int cpu) {
  if (!list) return false;
  const std::optional<std::set<int>> cpus = ParseCpuList(*list);
  return cpus && cpus->count(cpu) > 0;
}

void FrequencyWarnings(const SystemCheck& c, const std::string& name,
                       std::vector<std::string>& out) {
  if (!HasCpufreq(c)) {
    out.push_back("no cpufreq on " + name +
                  ": the kernel does not control its frequency here (a VM?), so it may vary "
                  "unseen");
  } else if (c.governor && *c.governor != "performance") {
    out.push_back(name + ": governor " + *c.governor +
                  ", not performance (khost agent tune-system NAME sets it)");
  }
  if (c.boost.value_or(false)) {
    out.push_back(
        "boost/turbo is on: the frequency follows load and temperature "
        "(khost agent tune-system NAME turns it off)");
  }
}

}  // namespace

std::string FormatCelsius(int64_t temp_mc) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f C", static_cast<double>(temp_mc) / 1000.0);
  return text;
}

bool HasCpufreq(const SystemCheck& c) {
  return c.governor || c.min_freq_khz || c.max_freq_khz || c.cur_freq_khz;
}

std::vector<std::string> SystemWarnings(const SystemCheck& c) {
  std::vector<std::string> out;
  const bool pinned = c.cpu >= 0;
  const int cpu = pinned ? c.cpu : 0;
  const std::string name = "CPU " + std::to_string(cpu);
  if (!pinned) {
    out.push_back("the run is not pinned to a CPU (khost run --cpu N): the CPU checked is CPU 0");
  }
  FrequencyWarnings(c, name, out);
  for (const ThermalZone& z : c.thermal_zones) {
    if (z.temp_mc && *z.temp_mc >= kHotTempMc) {
      out.push_back("thermal zone " + z.type + " is at " + FormatCelsius(*z.temp_mc) +
                    ": the CPU may throttle");
    }
  }
  if (pinned && (c.isolated || c.nohz_full) && !InList(c.isolated, cpu) &&
      !InList(c.nohz_full, cpu)) {
    out.push_back(name +
                  " is not isolated (isolcpus/nohz_full): other tasks and timer ticks "
                  "may run on it");
  }
  if (c.smt_siblings) {
    std::vector<std::string> others;
    for (int sibling : ParseCpuList(*c.smt_siblings).value_or(std::set<int>{})) {
      if (sibling != cpu) others.push_back(std::to_string(sibling));
    }
    if (!others.empty()) {
      const bool one = others.size() == 1;
      out.push_back(name + "'s SMT sibling" + (one ? " " : "s ") + Join(others, ",") +
                    (one ? " is online: it shares" : " are online: they share") +
                    " the core's caches and pipelines");
    }
  }
  // ASLR on is no threat: each repetition runs at a new layout, so over the repetitions no
  // variant keeps a lucky (or unlucky) alignment, and the interval of the median holds that
  // spread. It is shown (system_report.h), not warned of.
  // The runnable tasks as the run starts decide; the last minute's load (which counts a build that
  // has just ended) only where they are unknown.
  std::string load;
  if (c.load_1min && *c.load_1min >= kBusyLoad) {
    char number[32];
    std::snprintf(number, sizeof number, "%.2f", *c.load_1min);
    load = std::string("load ") + number + " over the last minute" +
           (c.online_cpus ? " on " + std::to_string(*c.online_cpus) + " CPUs" : "");
  }
  if (c.other_runnable.value_or(0) > 0) {
    out.push_back(std::to_string(*c.other_runnable) + " other runnable task" +
                  (*c.other_runnable > 1 ? "s" : "") + " on the machine as the check ran" +
                  (load.empty() ? "" : " (" + load + ")"));
  } else if (!c.other_runnable && !load.empty()) {
    out.push_back(load + ": other work competes with the kernels");
  }
  return out;
}

std::optional<int64_t> HottestZoneMc(const SystemCheck& check) {
  std::optional<int64_t> hottest;
  for (const ThermalZone& z : check.thermal_zones) {
    if (z.temp_mc && (!hottest || *z.temp_mc > *hottest)) hottest = z.temp_mc;
  }
  return hottest;
}

}  // namespace ktune
