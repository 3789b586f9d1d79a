#include "agent/server/tune_system.h"

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <optional>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/strings.h"
#include "common/system_check.h"

namespace ktune::agent {
namespace {

// A file tune-system sets: its path under the root, what people call it, and the value it wants
// (or, remembered, the value it replaced).
struct Knob {
  std::string path, label, value;
};

std::vector<Knob> Knobs(const std::string& root) {
  const std::string cpus = "/sys/devices/system/cpu";
  std::vector<Knob> knobs;
  if (auto online = ReadFile(root + cpus + "/online"); online.ok()) {
    for (int cpu : ParseCpuList(*online).value_or(std::set<int>{})) {
      const std::string name = "cpu" + std::to_string(cpu);
      knobs.push_back(
          {cpus + "/" + name + "/cpufreq/scaling_governor", name + " governor", "performance"});
    }
  }
  knobs.push_back({cpus + "/cpufreq/boost", "boost", "0"});
  knobs.push_back({cpus + "/intel_pstate/no_turbo", "intel_pstate no_turbo", "1"});
  return knobs;
}

Status WriteValue(const std::string& path, const std::string& value) {
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_WRONLY | O_TRUNC));
  return WriteAll(fd.get(), value + "\n", path);
}

// The saved file: one "path<TAB>label<TAB>value" line per replaced value.
std::map<std::string, Knob> ReadSaved(const std::string& saved_path) {
  std::map<std::string, Knob> saved;
  auto text = ReadFile(saved_path);
  if (!text.ok()) return saved;
  for (std::string_view line : Split(*text, '\n')) {
    const std::vector<std::string_view> f = Split(line, '\t');
    if (f.size() != 3) continue;
    saved[std::string(f[0])] = {std::string(f[0]), std::string(f[1]), std::string(f[2])};
  }
  return saved;
}

Status WriteSaved(const std::string& saved_path, const std::map<std::string, Knob>& saved) {
  std::string text;
  for (const auto& [path, k] : saved) text += k.path + "\t" + k.label + "\t" + k.value + "\n";
  return WriteFileAtomic(saved_path, text);
}

std::vector<std::string> Reset(const std::string& root, const std::string& saved_path) {
  const std::map<std::string, Knob> saved = ReadSaved(saved_path);
  if (saved.empty()) return {"nothing to reset: tune-system has changed nothing here"};
  std::vector<std::string> said;
  for (const auto& [path, old] : saved) {
    auto text = ReadFile(root + path);
    const std::string now = text.ok() ? std::string(Trim(*text)) : "?";
    const Status s = WriteValue(root + path, old.value);
    said.push_back(old.label + ": " +
                   (s.ok() ? now + " -> " + old.value : "stays " + now + ": " + s.message()));
  }
  ::unlink(saved_path.c_str());
  return said;
}

}  // namespace

Result<std::vector<std::string>> TuneSystem(const std::string& root, const std::string& saved_path,
                                            bool reset, bool running_as_root) {
  if (!running_as_root) return Unsupported("tune-system needs agentd running as root");
  if (reset) return Reset(root, saved_path);
  std::map<std::string, Knob> saved = ReadSaved(saved_path);
  std::vector<std::string> said;
  bool any = false;
  for (const Knob& k : Knobs(root)) {
    auto text = ReadFile(root + k.path);
    if (!text.ok()) continue;
    any = true;
    const std::string now(Trim(*text));
    if (now == k.value) continue;
    if (const Status s = WriteValue(root + k.path, k.value); !s.ok()) {
      said.push_back(k.label + ": stays " + now + ": " + s.message());
      continue;
    }
    said.push_back(k.label + ": " + now + " -> " + k.value);
    saved.emplace(k.path, Knob{k.path, k.label, now});  // the first value replaced is kept
  }
  if (!any) return std::vector<std::string>{"nothing to change: no cpufreq here"};
  KT_RETURN_IF_ERROR(WriteSaved(saved_path, saved));
  if (said.empty()) said.push_back("nothing to change: the governors are performance, boost off");
  return said;
}

}  // namespace ktune::agent
