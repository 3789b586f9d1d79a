#include "host/tune/triton.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::host {

Result<Config> ParseBlkConstants(const std::string& json_text, const KernelSpec& spec,
                                 const std::string& path) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return InvalidArgument(path + ": not a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (!value.is_number_integer())
      return InvalidArgument(path + ": " + key + " is not an integer");
    const bool param = std::any_of(spec.params.begin(), spec.params.end(),
                                   [&](const SpecParam& p) { return p.name == key; });
    if (param) continue;
    auto c = std::find_if(spec.constants.begin(), spec.constants.end(),
                          [&](const auto& c) { return c.first == key; });
    if (c == spec.constants.end()) {
      return InvalidArgument(path + ": " + key + " is neither a parameter nor a constant of " +
                             spec.path);
    }
    if (value.get<int64_t>() != c->second) {
      return InvalidArgument(path + ": " + key + " is " + std::to_string(value.get<int64_t>()) +
                             " but " + spec.path + " fixes it at " + std::to_string(c->second));
    }
  }
  Config config;
  for (const SpecParam& p : spec.params) {
    if (!j.contains(p.name)) return InvalidArgument(path + ": no value for parameter " + p.name);
    config.push_back(j[p.name].get<int64_t>());
  }
  return config;
}

Result<std::vector<TritonConfig>> ScanTritonDir(const std::string& dir, const KernelSpec& spec,
                                                size_t* dropped) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return NotFound("--triton " + dir + ": not a directory");
  std::vector<std::string> subdirs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "blk_constants.json")) {
      subdirs.push_back(e.path().string());
    }
  }
  std::sort(subdirs.begin(), subdirs.end());
  if (subdirs.empty()) {
    return NotFound("--triton " + dir + ": no configuration directories (with blk_constants.json)");
  }
  std::vector<TritonConfig> out;
  *dropped = 0;
  for (const std::string& sub : subdirs) {
    TritonConfig c;
    c.dir = sub;
    const std::string json_path = sub + "/blk_constants.json";
    KT_ASSIGN_OR_RETURN(std::string text, ReadFile(json_path));
    KT_ASSIGN_OR_RETURN(c.config, ParseBlkConstants(text, spec, json_path));
    c.llir_path = sub + "/" + spec.name + "_kernel.llir";
    c.launcher_path = sub + "/" + spec.name + "_kernel_launcher.cpp";
    for (const std::string* f : {&c.llir_path, &c.launcher_path}) {
      if (!fs::exists(*f, ec)) return NotFound(sub + ": no " + fs::path(*f).filename().string());
    }
    const bool seen = std::any_of(out.begin(), out.end(),
                                  [&](const TritonConfig& o) { return o.config == c.config; });
    if (seen) {
      ++*dropped;
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

IrTarget ReadIrTarget(std::string_view ir) {
  IrTarget t;
  for (std::string_view line : Split(ir, '\n')) {
    for (auto [prefix, out] :
         {std::pair<std::string_view, std::string*>{"target triple = \"", &t.triple},
          {"target datalayout = \"", &t.datalayout}}) {
      if (line.substr(0, prefix.size()) == prefix && line.size() > prefix.size() &&
          line.back() == '"') {
        *out = std::string(line.substr(prefix.size(), line.size() - prefix.size() - 1));
      }
    }
  }
  return t;
}

namespace {

std::string_view Arch(std::string_view triple) {
  return triple.substr(0, triple.find('-'));
}

}  // namespace

Result<std::string> RetargetIr(std::string_view ir, const IrTarget& target,
                               std::string_view host_arch, const std::string& what) {
  const IrTarget from = ReadIrTarget(ir);
  if (from.triple.empty()) return InvalidArgument(what + ": no 'target triple' line");
  if (Arch(from.triple) == Arch(target.triple)) return std::string(ir);
  if (Arch(from.triple) != host_arch) {
    return InvalidArgument(what + ": compiled for " + from.triple +
                           ", which is neither this host (" + std::string(host_arch) +
                           ") nor the toolchain's target (" + target.triple + ")");
  }
  static const std::regex kHostAttr(R"re( ?"(target-cpu|target-features|tune-cpu)"="[^"]*")re");
  std::string out;
  for (std::string_view line : Split(ir, '\n')) {
    std::string l(line);
    if (l.rfind("target triple = ", 0) == 0) {
      l = "target triple = \"" + target.triple + "\"";
    } else if (l.rfind("target datalayout = ", 0) == 0) {
      l = "target datalayout = \"" + target.datalayout + "\"";
    } else if (l.rfind("attributes #", 0) == 0) {
      l = std::regex_replace(l, kHostAttr, "");
    }
    out += l;
    out += '\n';
  }
  if (!out.empty() && ir.substr(ir.size() - 1) != "\n") out.pop_back();
  return out;
}

}  // namespace ktune::host
