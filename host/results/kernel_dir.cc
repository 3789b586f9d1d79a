#include "host/results/kernel_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "common/hash.h"
#include "host/results/test_data_files.h"
#include "host/util/user_paths.h"

namespace ktune::host {
namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

namespace {

// The content hash of what `fd` reads, from its start.
Result<std::string> HashFd(int fd, const std::string& what) {
  Hasher h;
  char buf[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + what, errno);
    if (n == 0) return h.HexDigest();
    h.Update(std::string_view(buf, static_cast<size_t>(n)));
    at += n;
  }
}

bool IsPathKey(const std::string& key) {
  return key.size() > 5 && key.compare(key.size() - 5, 5, "_path") == 0;
}

std::string ScalarText(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Accepts a path relative to root; an absolute path is accepted when it lies under root.
Result<std::string> RelativeToRoot(const std::string& root, const std::string& path) {
  if (!path.empty() && path[0] == '/') {
    const fs::path rel =
        fs::path(path).lexically_normal().lexically_relative(fs::absolute(root).lexically_normal());
    if (rel.empty() || rel.string().starts_with("..")) {
      return InvalidArgument("path " + path + " is outside " + root);
    }
    return rel.string();
  }
  const std::string norm = fs::path(path).lexically_normal().string();
  KT_RETURN_IF_ERROR(ValidateBundlePath(norm));
  return norm;
}

// A directory strictly under `under` ("<kernel>/run/test_data/"), as a bundle path.
bool IsTestDataDir(const std::string& path, const std::string& under) {
  return path.size() > under.size() && path.starts_with(under) && ValidateBundlePath(path).ok() &&
         fs::path(path).lexically_normal().string() == path;
}

}  // namespace

std::string RunDirUnderRoot(const std::string& kernel) {
  return kernel + "/run";
}

std::string KernelRunDir(const std::string& root, const std::string& kernel) {
  return root + "/" + RunDirUnderRoot(kernel);
}

Result<std::string> RunDirBeneath(const std::string& root, const std::string& kernel) {
  KT_RETURN_IF_ERROR(ValidateKernelName(kernel));
  KT_RETURN_IF_ERROR(CheckBeneath(root, RunDirUnderRoot(kernel)));
  return KernelRunDir(root, kernel);
}

std::string KernelSymbol(const std::string& kernel) {
  return kernel + "_kernel";
}

namespace {

// A variant's "shape": positive integers named by letters, digits and '_'.
Status ParseVariantShape(const ordered_json& value, const std::string& where, KernelVariant* var) {
  if (!value.is_object()) return InvalidArgument(where + ": \"shape\" must be an object");
  for (const auto& [name, dim] : value.items()) {
    if (ShapeDirName({{name, "1"}}).empty()) {
      return InvalidArgument(where + ": shape name '" + name + "' must be letters, digits and '_'");
    }
    if (!dim.is_number_integer() || dim.get<int64_t>() <= 0) {
      return InvalidArgument(where + ": shape " + name + " must be a positive integer");
    }
    var->shape.emplace_back(name, std::to_string(dim.get<int64_t>()));
  }
  return Status::Ok();
}

// A variant's "work": {"flops": F, "bytes": B}, each a finite number 0 or more, either absent.
Result<VariantWork> ParseWork(const ordered_json& value, const std::string& where) {
  if (!value.is_object()) return InvalidArgument(where + ": \"work\" must be an object");
  VariantWork work;
  for (const auto& [key, v] : value.items()) {
    std::optional<double>* out = key == "flops"   ? &work.flops
                                 : key == "bytes" ? &work.bytes
                                                  : nullptr;
    if (!out) {
      return InvalidArgument(where + ": \"work\" has " + key + "; it takes flops and bytes");
    }
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      return InvalidArgument(where + ": \"work\": " + key + " must be a number, 0 or more");
    }
    *out = v.get<double>();
  }
  return work;
}

// One entry of "variants": its paths, args, shape, test data and parameters.
Result<KernelVariant> ParseVariant(const ordered_json& v, const std::string& where,
                                   const std::string& kernel) {
  if (!v.is_object()) return InvalidArgument(where + " is not an object");
  if (!v.contains("elf_path") || !v["elf_path"].is_string()) {
    return InvalidArgument(where + " has no \"elf_path\" string");
  }
  KernelVariant var;
  var.elf_path = v["elf_path"].get<std::string>();
  var.name = fs::path(var.elf_path).filename().string();
  if (v.contains("asm_path") && v["asm_path"].is_string()) {
    var.asm_path = v["asm_path"].get<std::string>();
  }
  for (const auto& [key, value] : v.items()) {
    if (IsPathKey(key)) continue;
    if (key == "args") {
      if (!value.is_array()) return InvalidArgument(where + ": \"args\" must be a list");
      for (const ordered_json& a : value) var.args.push_back(ScalarText(a));
    } else if (key == "shape") {
      KT_RETURN_IF_ERROR(ParseVariantShape(value, where, &var));
    } else if (key == "test_data") {
      const std::string under = RunDirUnderRoot(kernel) + "/test_data/";
      if (!value.is_string() || !IsTestDataDir(value.get<std::string>(), under)) {
        return InvalidArgument(where + ": \"test_data\" must be a directory under " + under);
      }
      var.test_data = value.get<std::string>();
    } else if (key == "work") {
      KT_ASSIGN_OR_RETURN(var.work, ParseWork(value, where));
    } else {
      if (!value.is_primitive() || value.is_null()) {
        return InvalidArgument(where + ": parameter " + key + " must be a number or a string");
      }
      const std::string value_text = ScalarText(value);
      if (Status ok = ValidateParam(key, value_text); !ok.ok()) {
        return InvalidArgument(where + ": " + ok.message());
      }
      var.params.emplace_back(key, value_text);
    }
  }
  return var;
}

}  // namespace

Result<KernelDir> ParseConfigsJson(const std::string& text, const std::string& kernel) {
  KernelDir dir;
  dir.kernel = kernel;
  ordered_json doc;
  try {
    doc = ordered_json::parse(text);
  } catch (const ordered_json::exception& e) {  // parse_error; out_of_range for 1e400
    return InvalidArgument("configs.json of " + kernel + " is not valid JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("variants") || !doc["variants"].is_array()) {
    return InvalidArgument("configs.json of " + kernel + " has no \"variants\" list");
  }
  size_t index = 0;
  for (const ordered_json& v : doc["variants"]) {
    const std::string where = "configs.json of " + kernel + ", variant " + std::to_string(index++);
    KT_ASSIGN_OR_RETURN(KernelVariant var, ParseVariant(v, where, kernel));
    dir.variants.push_back(std::move(var));
  }
  if (dir.variants.empty()) {
    return InvalidArgument("configs.json of " + kernel + " lists no variant");
  }
  if (doc.contains("perf_files") && doc["perf_files"].is_object() &&
      doc["perf_files"].contains("stat") && doc["perf_files"]["stat"].is_string()) {
    dir.perf_stat_path = doc["perf_files"]["stat"].get<std::string>();
  }
  if (doc.contains("build") && doc["build"].is_object()) {
    for (const auto& [key, value] : doc["build"].items()) {
      if (value.is_string()) dir.build[key] = value.get<std::string>();
    }
  }
  return dir;
}

Result<KernelDir> LoadKernelDir(const std::string& root, const std::string& kernel) {
  KT_RETURN_IF_ERROR(ValidateKernelName(kernel));
  const std::string kernel_dir = root + "/" + kernel;
  if (!fs::is_directory(kernel_dir)) {
    return NotFound("no kernel directory " + kernel_dir + " (expected <root>/" + kernel +
                    "/run/configs.json; --root sets <root>)");
  }
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(root, kernel));
  const std::string configs = run_dir + "/configs.json";
  auto text = ReadBeneath(root, RunDirUnderRoot(kernel) + "/configs.json");
  if (!text.ok()) return NotFound("cannot read " + configs + ": " + text.status().message());
  return KernelDirOf(root, kernel, *text);
}

Result<KernelDir> KernelDirOf(const std::string& root, const std::string& kernel,
                              const std::string& configs_json) {
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(root, kernel));
  KT_ASSIGN_OR_RETURN(KernelDir dir, ParseConfigsJson(configs_json, kernel));
  dir.root = root;
  dir.run_dir = run_dir;
  const std::string where = "configs.json of " + kernel;
  for (KernelVariant& v : dir.variants) {
    auto rel = RelativeToRoot(root, v.elf_path);
    if (!rel.ok()) return rel.status().WithContext(where);
    v.elf_path = *rel;
    if (auto elf = OpenBeneath(root, v.elf_path); !elf.ok()) {
      if (elf.status().code() != ErrorCode::kNotFound) {
        return elf.status().WithContext("variant " + v.name);
      }
      return NotFound("variant " + v.name + ": ELF " + root + "/" + v.elf_path + " does not exist");
    }
    if (!v.asm_path.empty()) {
      auto asm_rel = RelativeToRoot(root, v.asm_path);
      if (!asm_rel.ok()) return asm_rel.status().WithContext(where);
      v.asm_path = *asm_rel;
    }
  }
  if (!dir.perf_stat_path.empty()) {
    auto rel = RelativeToRoot(root, dir.perf_stat_path);
    if (!rel.ok()) return rel.status().WithContext(where + ", perf_files.stat");
    dir.perf_stat_path = *rel;
  }
  return dir;
}

Result<Manifest> BuildManifest(const KernelDir& dir) {
  Manifest m;
  m.kernel = dir.kernel;
  std::vector<std::string> paths;
  paths.push_back(RunDirUnderRoot(dir.kernel) + "/configs.json");
  for (const KernelVariant& v : dir.variants) paths.push_back(v.elf_path);
  // The directory itself must lie inside the root before it is even listed; each file is
  // checked again as it is read.
  KT_RETURN_IF_ERROR(CheckBeneath(dir.root, RunDirUnderRoot(dir.kernel) + "/test_data"));
  const fs::path test_data = fs::path(dir.run_dir) / "test_data";
  KT_ASSIGN_OR_RETURN(std::vector<std::string> old, OldNumberedTestData(test_data.string()));
  if (!old.empty()) return InvalidArgument(OldNumberingMessage(dir.kernel, old[0], old.size()));
  std::error_code ec;
  if (fs::is_directory(test_data)) {
    for (auto it = fs::recursive_directory_iterator(test_data, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file()) {
        // The path as named under the root (a link on the way is not resolved here: the bundle
        // keeps the layout the kernel reads, and OpenBeneath checks where it leads).
        paths.push_back(it->path().lexically_relative(dir.root).lexically_normal().string());
      }
    }
    if (ec) return IoError("listing " + test_data.string() + ": " + ec.message());
  }
  for (const std::string& rel : paths) {
    if (std::any_of(m.files.begin(), m.files.end(),
                    [&](const FileEntry& f) { return f.path == rel; })) {
      continue;  // two variants sharing one ELF
    }
    // Read beneath the root: a link that leads out of it is refused, never uploaded.
    KT_ASSIGN_OR_RETURN(const ScopedFd fd, OpenBeneath(dir.root, rel));
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + dir.root + "/" + rel, errno);
    KT_ASSIGN_OR_RETURN(std::string hash, HashFd(fd.get(), dir.root + "/" + rel));
    m.files.push_back({rel, hash, static_cast<uint64_t>(st.st_size), st.st_mode & 0777});
  }
  KT_RETURN_IF_ERROR(NormalizeManifest(m));
  return m;
}

}  // namespace ktune::host
