#include "host/report/system_report.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <vector>

#include "common/strings.h"

namespace ktune::host {
namespace {

std::string Mhz(const std::optional<uint64_t>& freq_khz) {
  return freq_khz ? std::to_string(*freq_khz / 1000) + " MHz" : "unknown";
}

// A field of the system check for people: "unknown" when the agent could not read it.
std::string Known(const std::optional<std::string>& s) {
  if (!s) return "unknown";
  return s->empty() ? "none" : *s;
}
std::string Known(const std::optional<uint32_t>& n) {
  return n ? std::to_string(*n) : "unknown";
}

}  // namespace

std::string RenderSystemCheck(const SystemCheck& c) {
  const bool cpufreq = HasCpufreq(c);
  std::string boost = "unknown";
  if (c.boost) boost = *c.boost ? "on" : "off";
  std::vector<std::string> zones;
  for (const ThermalZone& z : c.thermal_zones) {
    zones.push_back(z.type + " " + (z.temp_mc ? FormatCelsius(*z.temp_mc) : "unknown"));
  }
  std::string aslr = "unknown";
  if (c.aslr) aslr = std::to_string(*c.aslr) + (*c.aslr ? " (on)" : " (off)");
  std::ostringstream out;
  out << "system (CPU " << std::max(c.cpu, 0) << "):\n"
      << "  governor:     " << (cpufreq ? Known(c.governor) : "none (no cpufreq)") << "\n";
  if (cpufreq) {
    out << "  frequency:    min " << Mhz(c.min_freq_khz) << ", max " << Mhz(c.max_freq_khz)
        << ", now " << Mhz(c.cur_freq_khz) << "\n";
  }
  out << "  boost:        " << boost << "\n"
      << "  thermal:      " << (zones.empty() ? "no thermal zones" : Join(zones, ", ")) << "\n"
      << "  isolated:     isolcpus " << Known(c.isolated) << ", nohz_full " << Known(c.nohz_full)
      << "\n"
      << "  SMT siblings: " << Known(c.smt_siblings) << "\n"
      << "  caches:       " << Known(c.caches) << "\n"
      << "  ASLR:         " << aslr << "\n"
      << "  load:         " << (c.load_1min ? FormatDouble(*c.load_1min) : "unknown")
      << " (1 min) on " << Known(c.online_cpus) << " CPUs, " << Known(c.other_runnable)
      << " other runnable\n";
  for (const std::string& w : SystemWarnings(c)) out << "warning: " << w << "\n";
  return out.str();
}

}  // namespace ktune::host
