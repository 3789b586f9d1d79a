#include "host/tune/variant_build.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "common/hash.h"
#include "common/results.h"
#include "common/strings.h"
#include "common/version.h"
#include "host/results/kernel_dir.h"
#include "host/util/elf_symbols.h"
#include "host/util/subprocess.h"

namespace ktune::host {
namespace fs = std::filesystem;

namespace {

// The spec's parameters and constants with this configuration's values.
std::vector<std::pair<std::string, int64_t>> Values(const KernelSpec& spec, const Config& config) {
  std::vector<std::pair<std::string, int64_t>> v;
  for (size_t i = 0; i < spec.params.size(); ++i) v.emplace_back(spec.params[i].name, config[i]);
  v.insert(v.end(), spec.constants.begin(), spec.constants.end());
  return v;
}

std::string SpecPath(const KernelSpec& spec, const std::string& relative) {
  return (fs::absolute(spec.dir) / relative).lexically_normal().string();
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsIr(const std::string& path) {
  return EndsWith(path, ".ll") || EndsWith(path, ".llir");
}
bool IsCxx(const std::string& path) {
  return EndsWith(path, ".cc") || EndsWith(path, ".cpp") || EndsWith(path, ".cxx");
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string FormatTolerance(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Function symbols defined in the variant's own objects, for the disassembly.
std::vector<std::string> OwnFunctions(const std::vector<std::string>& objects) {
  std::vector<std::string> names;
  for (const std::string& o : objects) {
    Result<std::string> bytes = ReadFile(o);
    if (!bytes.ok()) continue;
    Result<ElfImage> image = ElfImage::Parse(*bytes);
    if (!image.ok()) continue;
    for (const ElfSymbol& s : image->symbols()) {
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    }
  }
  return names;
}

class VariantBuilder {
 public:
  VariantBuilder(const KernelSpec& spec, const Toolchain& toolchain, const VariantJob& job,
                 const std::string& bin_dir)
      : spec_(spec), tc_(toolchain), job_(job), bin_dir_(bin_dir) {}

  VariantBuild Build(const std::string& shared_key) {
    const auto start = std::chrono::steady_clock::now();
    VariantBuild b;
    Status s = Run(shared_key, &b.state);
    if (!s.ok()) {
      b.state = BuildState::kFailed;
      b.message = s.message();
      b.kernel_undefined = undefined_symbol_ == KernelSymbol(spec_.name);
    }
    b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return b;
  }

 private:
  // The commands that build this job: one compile per source, the link into <elf>.tmp.
  struct Commands {
    std::vector<std::vector<std::string>> compiles;
    std::vector<std::string> objects;
    std::vector<std::string> link;
    std::string elf, asm_path;
  };

  Commands PlanCommands() const {
    Commands c;
    bool cxx = false;
    for (size_t i = 0; i < job_.sources.size(); ++i) {
      const std::string& src = job_.sources[i];
      c.objects.push_back(job_.work_dir + "/" + std::to_string(i) + "_" +
                          fs::path(src).filename().string() + ".o");
      c.compiles.push_back(CompileCommand(spec_, tc_, job_, src, c.objects.back()));
      cxx = cxx || IsCxx(src);
    }
    c.elf = bin_dir_ + "/" + job_.elf_name;
    c.asm_path = c.elf + ".s";
    c.link = Concat(cxx ? tc_.cxx : tc_.cc, tc_.target_flags);
    c.link = Concat(c.link, tc_.cflags);
    c.link = Concat(c.link, tc_.ldflags);
    c.link = Concat(c.link, c.objects);
    c.link = Concat(c.link, {"-lm", "-o", c.elf + ".tmp"});
    return c;
  }

  // The content key: what is shared by every job, the commands and the sources' digests.
  Result<std::string> CacheKey(const std::string& shared_key, const Commands& c) const {
    Hasher key;
    key.Update(shared_key);
    for (const auto& compile : c.compiles) key.Update(CommandLine(compile) + "\n");
    key.Update(CommandLine(c.link) + "\n");
    for (const std::string& src : job_.sources) {
      KT_ASSIGN_OR_RETURN(std::string digest, HashFile(src));
      key.Update(src + " " + digest + "\n");
    }
    return key.HexDigest();
  }

  // The ELF's assembly dump, of the functions its own objects define.
  Status Disassemble(const Commands& c) {
    std::vector<std::string> dump = Concat(tc_.objdump, {"-d", "--no-show-raw-insn"});
    const std::string functions = Join(OwnFunctions(c.objects), ",");
    if (!functions.empty()) dump.push_back("--disassemble-symbols=" + functions);
    dump.push_back(c.elf);
    KT_RETURN_IF_ERROR(Step(dump, c.asm_path + ".tmp"));
    std::error_code ec;
    fs::rename(c.asm_path + ".tmp", c.asm_path, ec);
    if (ec) return IoError("rename " + c.asm_path + ": " + ec.message());
    return Status::Ok();
  }

  Status Run(const std::string& shared_key, BuildState* state) {
    KT_RETURN_IF_ERROR(MakeDirs(job_.work_dir));
    for (const auto& [name, bytes] : job_.generated) {
      KT_RETURN_IF_ERROR(WriteFileIfChanged(job_.work_dir + "/" + name, bytes));
    }
    const Commands c = PlanCommands();
    KT_ASSIGN_OR_RETURN(const std::string digest, CacheKey(shared_key, c));
    const std::string key_path = job_.work_dir + "/key";
    Result<std::string> old_key = ReadFile(key_path);
    std::error_code ec;
    if (old_key.ok() && *old_key == digest && fs::exists(c.elf, ec) && fs::exists(c.asm_path, ec)) {
      *state = BuildState::kCached;
      return Status::Ok();
    }
    fs::remove(key_path, ec);
    log_.clear();
    // Through the launcher (a compile farm), which the key leaves out: it changes where a
    // compile runs, not what it makes.
    const std::string cwd = tc_.launcher.empty() ? "" : fs::current_path().string();
    for (const auto& compile : c.compiles) {
      KT_RETURN_IF_ERROR(Step(LaunchedCompile(tc_.launcher, compile, cwd), {}));
    }
    if (Status linked = Step(c.link, {}); !linked.ok()) {
      undefined_symbol_ = UndefinedSymbol(linked.message());
      return linked;
    }
    fs::rename(c.elf + ".tmp", c.elf, ec);
    if (ec) return IoError("rename " + c.elf + ": " + ec.message());
    KT_RETURN_IF_ERROR(Disassemble(c));
    KT_RETURN_IF_ERROR(WriteFileAtomic(job_.work_dir + "/build.log", log_));
    KT_RETURN_IF_ERROR(WriteFileAtomic(key_path, digest));
    *state = BuildState::kBuilt;
    return Status::Ok();
  }

  // Runs one command, logging it; a failure carries the command and the end of its output.
  Status Step(const std::vector<std::string>& argv, const std::string& stdout_path) {
    const std::string line = CommandLine(argv);
    log_ += "$ " + line + (stdout_path.empty() ? "" : " > " + stdout_path) + "\n";
    Result<ToolRun> run = RunTool(argv, {.cwd = "", .stdout_path = stdout_path});
    if (!run.ok()) {
      log_ += run.status().message() + "\n";
      (void)WriteFileAtomic(job_.work_dir + "/build.log", log_);
      return run.status();
    }
    log_ += run->output;
    if (run->exit_code == 0) return Status::Ok();
    (void)WriteFileAtomic(job_.work_dir + "/build.log", log_);
    return InvalidArgument("$ " + line + "\n" + LastLines(run->output, 20) + "\n(" +
                           (run->signal ? "killed by " + SignalName(run->signal)
                                        : "exit status " + std::to_string(run->exit_code)) +
                           "; full log " + job_.work_dir + "/build.log)");
  }

  const KernelSpec& spec_;
  const Toolchain& tc_;
  const VariantJob& job_;
  const std::string& bin_dir_;
  std::string log_;
  std::string undefined_symbol_;  // what the failed link said nothing defines
};

}  // namespace

std::string VariantStem(const KernelSpec& spec, const Config& config) {
  std::string stem = spec.name;
  for (int64_t v : config) stem += "_" + std::to_string(v);
  return stem;
}

std::string ConstantsSource(const KernelSpec& spec, const Config& config) {
  std::string s = "/* Generated by khost tune from " + fs::path(spec.path).filename().string() +
                  ": this variant's constants. */\n";
  for (const auto& [name, value] : Values(spec, config)) {
    s += "const int " + spec.name + "_" + name + " = " + std::to_string(value) + ";\n";
  }
  std::vector<std::string> atol, rtol;
  for (const TensorSpec& o : spec.outputs) {
    atol.push_back(FormatTolerance(o.atol));
    rtol.push_back(FormatTolerance(o.rtol));
  }
  if (spec.outputs.empty()) atol = rtol = {"0"};
  s += "const double ktune_atol[] = {" + Join(atol, ", ") + "};\n";
  s += "const double ktune_rtol[] = {" + Join(rtol, ", ") + "};\n";
  return s;
}

std::string BlkConstantsJson(const KernelSpec& spec, const Config& config) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, value] : Values(spec, config)) j[name] = value;
  return j.dump(2) + "\n";
}

std::vector<std::string> Defines(const KernelSpec& spec, const Config& config) {
  std::vector<std::string> d;
  for (const auto& [name, value] : Values(spec, config)) {
    d.push_back("-D" + name + "=" + std::to_string(value));
  }
  return d;
}

std::vector<VariantJob> PlanVariants(const KernelSpec& spec, const Toolchain& toolchain,
                                     const std::vector<Config>& configs,
                                     const std::vector<TritonSources>& triton_ir,
                                     const std::string& run_dir) {
  std::vector<VariantJob> jobs;
  for (size_t i = 0; i < configs.size(); ++i) {
    VariantJob j;
    j.config = configs[i];
    j.stem = VariantStem(spec, j.config);
    j.elf_name = toolchain.name_prefix + j.stem + toolchain.name_suffix + ".elf";
    j.work_dir =
        (fs::absolute(run_dir) / "build" / toolchain.name / j.stem).lexically_normal().string();
    for (const std::string& m : spec.main_sources) j.sources.push_back(SpecPath(spec, m));
    if (triton_ir.empty()) {
      for (const std::string& k : spec.kernel_sources) j.sources.push_back(SpecPath(spec, k));
    } else {
      const std::string ir_name = spec.name + "_kernel.ll";
      j.generated.emplace_back(ir_name, triton_ir[i].ir_text);
      j.sources.push_back(j.work_dir + "/" + ir_name);
      j.sources.push_back(triton_ir[i].launcher_path);
    }
    j.generated.emplace_back("constants.c", ConstantsSource(spec, j.config));
    j.generated.emplace_back("blk_constants.json", BlkConstantsJson(spec, j.config));
    j.sources.push_back(j.work_dir + "/constants.c");
    jobs.push_back(std::move(j));
  }
  return jobs;
}

std::vector<std::string> LaunchedCompile(const std::vector<std::string>& launcher,
                                         const std::vector<std::string>& compile,
                                         const std::string& cwd) {
  const bool distcc = LaunchesDistcc(launcher);
  const bool clang =
      !compile.empty() && fs::path(compile[0]).filename().string().starts_with("clang");
  std::vector<std::string> out = launcher;
  for (size_t i = 0; i < compile.size(); ++i) {
    if (distcc && clang && i > 0 && compile[i].starts_with("--target=")) {
      out.insert(out.end(), {"-target", compile[i].substr(std::string("--target=").size())});
    } else {
      out.push_back(compile[i]);
    }
  }
  if (distcc && clang) out.push_back("-fdebug-compilation-dir=" + cwd);
  return out;
}

std::vector<std::string> CompileCommand(const KernelSpec& spec, const Toolchain& toolchain,
                                        const VariantJob& job, const std::string& source,
                                        const std::string& object) {
  if (IsIr(source)) {
    std::vector<std::string> c = Concat(toolchain.ll_cc, toolchain.ll_flags);
    c = Concat(c, toolchain.cflags);
    return Concat(c, {"-Wno-override-module", "-c", "-x", "ir", source, "-o", object});
  }
  std::vector<std::string> c =
      Concat(IsCxx(source) ? toolchain.cxx : toolchain.cc, toolchain.target_flags);
  c = Concat(c, toolchain.cflags);
  c = Concat(c, spec.cflags);
  c.push_back("-I" + fs::absolute(spec.dir).lexically_normal().string());
  for (const std::string& inc : spec.include_dirs) c.push_back("-I" + SpecPath(spec, inc));
  c = Concat(c, Defines(spec, job.config));
  return Concat(c, {"-c", source, "-o", object});
}

Result<std::string> SharedKey(const KernelSpec& spec, const Toolchain& toolchain) {
  Hasher h;
  h.Update(toolchain.text);
  for (const std::vector<std::string>* tool : {&toolchain.cc, &toolchain.cxx, &toolchain.ll_cc}) {
    Result<ToolRun> v = RunTool({(*tool)[0], "--version"});
    if (!v.ok()) return v.status();
    h.Update(v->output);
  }
  // Headers and sources next to the spec and in its include directories.
  // Named relative to their directory, so the same tree reached by another path hashes alike.
  std::vector<std::pair<std::string, std::string>> files;  // name, path
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(spec.dir, ec)) {
    if (e.is_regular_file() && e.path().extension() != ".kspec") {
      files.emplace_back("spec/" + fs::relative(e.path(), spec.dir).string(), e.path().string());
    }
  }
  for (size_t i = 0; i < spec.include_dirs.size(); ++i) {
    const std::string dir = SpecPath(spec, spec.include_dirs[i]);
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      if (e.is_regular_file()) {
        files.emplace_back(
            "include" + std::to_string(i) + "/" + fs::relative(e.path(), dir).string(),
            e.path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& [name, path] : files) {
    KT_ASSIGN_OR_RETURN(std::string digest, HashFile(path));
    h.Update(name + " " + digest + "\n");
  }
  return h.HexDigest();
}

std::string ConfigsJson(const KernelSpec& spec, const std::vector<VariantJob>& jobs,
                        const std::vector<VariantBuild>& builds,
                        const std::vector<ShapeRun>& shapes,
                        const std::map<std::string, std::string>& build) {
  const std::string run = RunDirUnderRoot(spec.name) + "/";
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (builds[i].state == BuildState::kFailed) continue;
    for (const ShapeRun& shape : shapes) {
      if (shape.excluded.count(jobs[i].config)) continue;
      nlohmann::ordered_json v;
      for (size_t k = 0; k < spec.params.size(); ++k) v[spec.params[k].name] = jobs[i].config[k];
      const std::string stem = fs::path(jobs[i].elf_name).stem().string();
      v["elf_path"] = run + "bin/" + jobs[i].elf_name;
      v["asm_path"] = run + "bin/" + jobs[i].elf_name + ".s";
      v["perf_data_path"] = run + "perf/" + stem + ".data";
      v["perf_report_path"] = run + "perf/" + stem + ".txt";
      v["args"] = shape.args;
      nlohmann::ordered_json dims = nlohmann::ordered_json::object();
      for (const auto& [name, value] : shape.shape) dims[name] = value;
      v["shape"] = std::move(dims);
      if (shapes.size() > 1) v["test_data"] = run + shape.test_data;
      if (auto w = shape.work.find(jobs[i].config); w != shape.work.end() && !w->second.empty()) {
        nlohmann::ordered_json work = nlohmann::ordered_json::object();
        if (w->second.flops) work["flops"] = *w->second.flops;
        if (w->second.bytes) work["bytes"] = *w->second.bytes;
        v["work"] = std::move(work);
      }
      variants.push_back(std::move(v));
    }
  }
  nlohmann::ordered_json j;
  j["variants"] = std::move(variants);
  j["perf_files"] = {{"stat", run + "perf_stats.csv"}};
  if (!build.empty()) j["build"] = build;
  return j.dump(2) + "\n";
}

std::map<std::string, std::string> BuildRecord(const KernelSpec& spec, const Toolchain& toolchain,
                                               const std::string& shared_key) {
  Result<std::string> spec_hash = HashFile(spec.path);
  return {{"spec_hash", spec_hash.ok() ? *spec_hash : ""},
          {"toolchain", toolchain.name},
          {"sources", shared_key},
          {"ktune", KTUNE_VERSION}};
}

std::string UndefinedSymbol(std::string_view link_output) {
  for (const auto& [marker, end] :
       {std::pair<std::string_view, std::string_view>{"undefined reference to `", "'\n"},
        {"undefined symbol: ", "\n"}}) {
    const size_t at = link_output.find(marker);
    if (at == std::string_view::npos) continue;
    const size_t from = at + marker.size();
    const size_t to = link_output.find_first_of(end, from);
    return std::string(link_output.substr(from, to == std::string_view::npos ? to : to - from));
  }
  return "";
}

Status KernelUndefinedError(const KernelSpec& spec, size_t not_built) {
  return InvalidArgument(spec.path + ": no source of the spec defines " + KernelSymbol(spec.name) +
                         " (main: " + Join(spec.main_sources, " ") + "; kernel_source: " +
                         (spec.kernel_sources.empty() ? "none" : Join(spec.kernel_sources, " ")) +
                         "): is a 'kernel_source:' line missing? (docs/KSPEC.md" +
                         (not_built
                              ? "; " + std::to_string(not_built) + " more variants were not built)"
                              : std::string(")")));
}

std::vector<VariantBuild> BuildVariants(
    const KernelSpec& spec, const Toolchain& toolchain, const std::vector<VariantJob>& jobs,
    const std::string& shared_key, const std::string& bin_dir, size_t parallel,
    const std::function<void(size_t index, const VariantBuild&)>& done) {
  std::vector<VariantBuild> results(jobs.size());
  std::mutex mu;
  std::atomic<bool> lacking{false};  // a link lacked the kernel: the spec's fault
  ParallelFor(jobs.size(), parallel, [&](size_t i) {
    if (lacking) {
      results[i].skipped = true;
      results[i].message = "not built: an earlier variant's link lacked the kernel";
    } else {
      results[i] = VariantBuilder(spec, toolchain, jobs[i], bin_dir).Build(shared_key);
      if (results[i].kernel_undefined) lacking = true;
    }
    std::lock_guard<std::mutex> lock(mu);
    done(i, results[i]);
  });
  return results;
}

}  // namespace ktune::host
