#include "host/tune/toolchain.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"
#include "host/util/subprocess.h"

namespace ktune::host {

namespace {

// Sets one `key = value` of a profile; an error names an unknown key or a malformed value. Tabs
// separate words like spaces.
Status SetKey(Toolchain& t, const std::string& key, std::string_view value, bool* ll_flags_set) {
  const std::map<std::string, std::vector<std::string>*> lists = {{"cc", &t.cc},
                                                                  {"cxx", &t.cxx},
                                                                  {"target_flags", &t.target_flags},
                                                                  {"cflags", &t.cflags},
                                                                  {"ldflags", &t.ldflags},
                                                                  {"ll_cc", &t.ll_cc},
                                                                  {"ll_flags", &t.ll_flags},
                                                                  {"objdump", &t.objdump},
                                                                  {"emulator", &t.emulator},
                                                                  {"needs", &t.needs},
                                                                  {"launcher", &t.launcher}};
  const std::map<std::string, std::string*> strings = {{"description", &t.description},
                                                       {"processor", &t.processor},
                                                       {"name_prefix", &t.name_prefix},
                                                       {"name_suffix", &t.name_suffix}};
  if (auto it = lists.find(key); it != lists.end()) {
    *it->second = SplitWords(value);
    if (key == "ll_flags") *ll_flags_set = true;
  } else if (auto s = strings.find(key); s != strings.end()) {
    std::string spaced(value);
    std::replace(spaced.begin(), spaced.end(), '\t', ' ');
    *s->second = spaced;
  } else if (key == "packages") {
    for (const std::string& pair : SplitWords(value)) {
      const size_t colon = pair.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == pair.size()) {
        return InvalidArgument("packages: expected TOOL:PACKAGE, got '" + pair + "'");
      }
      t.packages[pair.substr(0, colon)] = pair.substr(colon + 1);
    }
  } else {
    return InvalidArgument("unknown key '" + key + "'");
  }
  return Status::Ok();
}

// What a whole profile must hold, and the defaults of what it may leave out.
Status Complete(Toolchain& t, const std::string& path, bool ll_flags_set) {
  for (const std::string* part : {&t.name_prefix, &t.name_suffix}) {
    if (part->find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
        std::string::npos) {
      return InvalidArgument(path +
                             ": name_prefix and name_suffix take letters, digits, _ . - only");
    }
  }
  if (t.cc.empty()) return InvalidArgument(path + ": no 'cc ='");
  if (t.cxx.empty()) return InvalidArgument(path + ": no 'cxx ='");
  if (t.objdump.empty()) return InvalidArgument(path + ": no 'objdump ='");
  if (!t.emulator.empty() && t.processor.empty()) {
    return InvalidArgument(path + ": a profile with an emulator needs 'processor ='");
  }
  if (t.ll_cc.empty()) t.ll_cc = t.cc;
  if (!ll_flags_set) t.ll_flags = t.target_flags;
  return Status::Ok();
}

// The compile farms' launchers and their Debian packages.
const std::map<std::string, std::string>& LauncherPackages() {
  static const std::map<std::string, std::string> packages = {{"distcc", "distcc"},
                                                              {"icecc", "icecc"}};
  return packages;
}

}  // namespace

Result<Toolchain> ParseToolchain(std::string_view text, const std::string& path) {
  Toolchain t;
  t.name = std::filesystem::path(path).stem().string();
  bool ll_flags_set = false;
  size_t line = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line;
    const std::string_view l = Trim(raw);
    if (l.empty() || l[0] == '#') {
      t.text += std::string(raw) + "\n";
      continue;
    }
    const std::string where = path + ":" + std::to_string(line) + ": ";
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) return InvalidArgument(where + "expected 'key = value'");
    const std::string key(Trim(l.substr(0, eq)));
    const Status set = SetKey(t, key, Trim(l.substr(eq + 1)), &ll_flags_set);
    if (!set.ok()) return InvalidArgument(where + set.message());
    if (key != "launcher") t.text += std::string(raw) + "\n";
  }
  KT_RETURN_IF_ERROR(Complete(t, path, ll_flags_set));
  return t;
}

Result<Toolchain> LoadToolchain(const std::string& name_or_path, const std::string& dir) {
  std::string path = name_or_path;
  const bool is_file = path.find('/') != std::string::npos ||
                       (path.size() > 8 && path.substr(path.size() - 8) == ".profile");
  if (!is_file) path = dir + "/" + name_or_path + ".profile";
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) {
    return NotFound("no toolchain profile " + path + " (known: " + Join(ToolchainNames(dir), ", ") +
                    ")");
  }
  return ParseToolchain(*text, path);
}

std::vector<std::string> ToolchainNames(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".profile") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Status CheckTools(const Toolchain& t, bool with_emulator) {
  std::vector<std::string> tools = {t.cc[0], t.cxx[0], t.ll_cc[0], t.objdump[0]};
  tools.insert(tools.end(), t.needs.begin(), t.needs.end());
  if (!t.launcher.empty()) tools.push_back(t.launcher[0]);
  if (with_emulator && !t.emulator.empty()) tools.push_back(t.emulator[0]);
  for (const std::string& tool : tools) {
    if (!FindInPath(tool).empty()) continue;
    auto p = t.packages.find(tool);
    const auto known = LauncherPackages().find(tool);
    const std::string package = p != t.packages.end()               ? p->second
                                : known != LauncherPackages().end() ? known->second
                                                                    : "";
    return NotFound("toolchain " + t.name + " needs " + tool + ", which is not in PATH: " +
                    (!package.empty() ? "install the Debian package " + package +
                                            " (scripts/setup.sh installs it)"
                                      : std::string("its profile names no package for it")));
  }
  return Status::Ok();
}

bool LaunchesDistcc(const std::vector<std::string>& launcher) {
  return std::any_of(launcher.begin(), launcher.end(), [](const std::string& word) {
    return std::filesystem::path(word).filename() == "distcc";
  });
}

BuildSlots BuildParallelism(const Toolchain& t, size_t jobs) {
  const size_t cores = std::max<size_t>(1, std::thread::hardware_concurrency());
  if (jobs > 0) return {jobs, "-j " + std::to_string(jobs)};
  if (LaunchesDistcc(t.launcher)) {
    ToolOptions options;
    options.timeout_seconds = 30;
    std::vector<std::string> ask = t.launcher;
    ask.push_back("-j");
    Result<ToolRun> j = RunTool(ask, options);
    const unsigned long n =
        j.ok() && j->exit_code == 0 ? std::strtoul(j->output.c_str(), nullptr, 10) : 0;
    if (n > 0) {
      return {std::min<size_t>(std::max<size_t>(n, cores), kMaxJobs),
              "distcc -j: " + std::to_string(n) + ", local cores: " + std::to_string(cores)};
    }
  }
  return {cores, "one per core"};
}

}  // namespace ktune::host
