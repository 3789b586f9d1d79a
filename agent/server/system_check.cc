#include "agent/server/system_check.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/strings.h"

namespace ktune::agent {
namespace {

namespace fs = std::filesystem;

// The file's text without surrounding white space; nullopt when it cannot be read.
std::optional<std::string> ReadTrimmed(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return std::nullopt;
  return std::string(Trim(*text));
}

std::optional<uint64_t> ReadUint(const std::string& path) {
  const auto text = ReadTrimmed(path);
  if (!text) return std::nullopt;
  auto v = ParseUint64(*text);
  return v.ok() ? std::optional<uint64_t>(*v) : std::nullopt;
}

std::optional<bool> ReadBoost(const std::string& cpu_dir) {
  if (auto boost = ReadUint(cpu_dir + "/cpufreq/boost")) return *boost != 0;
  if (auto no_turbo = ReadUint(cpu_dir + "/intel_pstate/no_turbo")) return *no_turbo == 0;
  return std::nullopt;
}

// thermal_zone<N> directories, by N.
std::vector<ThermalZone> ReadThermalZones(const std::string& dir) {
  std::vector<std::pair<uint64_t, std::string>> zones;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string prefix = "thermal_zone";
    if (name.rfind(prefix, 0) != 0) continue;
    if (auto n = ParseUint64(name.substr(prefix.size())); n.ok()) {
      zones.emplace_back(*n, it->path().string());
    }
  }
  std::sort(zones.begin(), zones.end());
  std::vector<ThermalZone> out;
  for (const auto& [n, path] : zones) {
    ThermalZone z;
    z.type = ReadTrimmed(path + "/type").value_or("thermal_zone" + std::to_string(n));
    if (auto temp = ReadTrimmed(path + "/temp")) {
      if (auto v = ParseInt64(*temp); v.ok()) z.temp_mc = *v;
    }
    out.push_back(std::move(z));
  }
  return out;
}

std::optional<double> ReadLoad(const std::string& path) {
  const auto text = ReadTrimmed(path);
  if (!text) return std::nullopt;
  const std::vector<std::string> words = SplitWords(*text);
  if (words.empty()) return std::nullopt;
  auto v = ParseDouble(words[0]);
  return v.ok() ? std::optional<double>(*v) : std::nullopt;
}

// procs_running counts the task reading it: the others are one fewer.
std::optional<uint32_t> ReadOtherRunnableOnce(const std::string& path) {
  const auto text = ReadTrimmed(path);
  if (!text) return std::nullopt;
  for (std::string_view line : Split(*text, '\n')) {
    const std::vector<std::string> words = SplitWords(line);
    if (words.size() != 2 || words[0] != "procs_running") continue;
    auto n = ParseUint64(words[1]);
    if (!n.ok()) return std::nullopt;
    return static_cast<uint32_t>(*n > 0 ? *n - 1 : 0);
  }
  return std::nullopt;
}

// The fewest of three reads 10 ms apart: a task that only passes through as the run starts (the
// agent's own network thread answering the request, khost writing its files) is no competitor;
// one that keeps a CPU busy is there each time.
std::optional<uint32_t> ReadOtherRunnable(const std::string& path) {
  std::optional<uint32_t> fewest = ReadOtherRunnableOnce(path);
  for (int i = 0; i < 2 && fewest; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::optional<uint32_t> n = ReadOtherRunnableOnce(path);
    if (n) fewest = std::min(*fewest, *n);
  }
  return fewest;
}

// cache/index<N>/{level,type,size} from N = 0 until one is missing: "L1d:32K L1i:32K L2:1024K";
// nullopt when index0 is.
std::optional<std::string> ReadCaches(const std::string& dir) {
  std::string out;
  for (int n = 0;; ++n) {
    const std::string index = dir + "/index" + std::to_string(n) + "/";
    const auto level = ReadTrimmed(index + "level");
    const auto size = ReadTrimmed(index + "size");
    if (!level || !size) return out.empty() ? std::nullopt : std::optional<std::string>(out);
    const std::string type = ReadTrimmed(index + "type").value_or("");
    const char* kind = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    out += (out.empty() ? "L" : " L") + *level + kind + ":" + *size;
  }
}

}  // namespace

SystemCheck ReadSystemCheck(const std::string& root, int cpu) {
  SystemCheck c;
  c.cpu = cpu;
  const std::string cpus = root + "/sys/devices/system/cpu";
  const std::string own = cpus + "/cpu" + std::to_string(std::max(cpu, 0));
  if (auto online = ReadTrimmed(cpus + "/online")) {
    if (auto list = ParseCpuList(*online)) c.online_cpus = static_cast<uint32_t>(list->size());
  }
  c.governor = ReadTrimmed(own + "/cpufreq/scaling_governor");
  c.min_freq_khz = ReadUint(own + "/cpufreq/scaling_min_freq");
  c.max_freq_khz = ReadUint(own + "/cpufreq/scaling_max_freq");
  c.cur_freq_khz = ReadUint(own + "/cpufreq/scaling_cur_freq");
  c.boost = ReadBoost(cpus);
  c.thermal_zones = ReadThermalZones(root + "/sys/class/thermal");
  c.isolated = ReadTrimmed(cpus + "/isolated");
  c.nohz_full = ReadTrimmed(cpus + "/nohz_full");
  if (c.nohz_full == "(null)") c.nohz_full = "";  // what kernels without nohz_full CPUs say
  c.smt_siblings = ReadTrimmed(own + "/topology/thread_siblings_list");
  c.caches = ReadCaches(own + "/cache");
  if (auto aslr = ReadUint(root + "/proc/sys/kernel/randomize_va_space")) {
    c.aslr = static_cast<int>(*aslr);
  }
  c.load_1min = ReadLoad(root + "/proc/loadavg");
  c.other_runnable = ReadOtherRunnable(root + "/proc/stat");
  return c;
}

MachineState ReadMachineState(const std::string& root, int cpu) {
  MachineState s;
  s.cur_freq_khz = ReadUint(root + "/sys/devices/system/cpu/cpu" +
                            std::to_string(std::max(cpu, 0)) + "/cpufreq/scaling_cur_freq");
  SystemCheck zones;
  zones.thermal_zones = ReadThermalZones(root + "/sys/class/thermal");
  s.hottest_mc = HottestZoneMc(zones);
  return s;
}

}  // namespace ktune::agent
