// khost tune <kernel>: builds one static ELF per configuration of a kernel spec with a toolchain
// profile, in parallel and cached, with assembly dumps, test data, golden outputs and the seed's
// configs.json; --check runs every variant (under the profile's emulator) and checks its output;
// --apply-best writes a run's winner back into the spec and launcher constants.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/kernel_output.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/command.h"
#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/results/results_dir.h"
#include "host/results/test_data_files.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/kspec_best.h"
#include "host/tune/tensors.h"
#include "host/tune/toolchain.h"
#include "host/tune/triton.h"
#include "host/tune/variant_build.h"
#include "host/util/progress.h"
#include "host/util/subprocess.h"

namespace ktune::host {
namespace fs = std::filesystem;

namespace {

cxxopts::Options TuneCliOptions() {
  cxxopts::Options o("khost tune", "Build one ELF per configuration of a kernel.");
  o.add_options()("kernel", "kernel name (kernels/<name>/<name>.kspec) or a .kspec file",
                  cxxopts::value<std::string>())(
      "toolchain", "toolchain profile: a name in the toolchains directory, or a .profile file",
      cxxopts::value<std::string>()->default_value("rvv-clang19"))(
      "j,jobs", "parallel builds (0: one per core)", cxxopts::value<size_t>()->default_value("0"))(
      "sample", "build N configurations drawn at random from the space", cxxopts::value<size_t>())(
      "seed", "seed of --sample", cxxopts::value<uint64_t>()->default_value("0"))(
      "shape", "override a shape value, NAME=VALUE (repeatable)",
      cxxopts::value<std::vector<std::string>>())(
      "triton", "build the Triton-CPU configuration directories under DIR instead of the grid",
      cxxopts::value<std::string>())(
      "check", "run every variant (under the toolchain's emulator) and check its output")(
      "check-timeout", "seconds one checked run may take",
      cxxopts::value<double>()->default_value("300"))(
      "kernels", "where kernel names are looked up",
      cxxopts::value<std::string>()->default_value(KTUNE_SOURCE_DIR "/kernels"))(
      "toolchains", "where toolchain names are looked up",
      cxxopts::value<std::string>()->default_value(KTUNE_SOURCE_DIR "/toolchains"))(
      "apply-best",
      "build nothing: write the winner of a run (--run, default the newest) into the kernel's "
      "spec (a best: line) and launcher constants (best_constants.c, best_blk_constants.json)")(
      "run", "the run --apply-best takes the winner of",
      cxxopts::value<std::string>()->default_value(""));
  AddRootOption(o);
  o.positional_help("<kernel>");
  return o;
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// The triple and data layout the toolchain's IR compiler targets.
Result<IrTarget> ToolchainIrTarget(const Toolchain& tc) {
  std::vector<std::string> argv = tc.ll_cc;
  argv.insert(argv.end(), tc.ll_flags.begin(), tc.ll_flags.end());
  argv.insert(argv.end(), {"-S", "-emit-llvm", "-x", "c", "/dev/null", "-o", "-"});
  KT_ASSIGN_OR_RETURN(ToolRun run, RunTool(argv));
  IrTarget t = ReadIrTarget(run.output);
  if (run.exit_code != 0 || t.triple.empty()) {
    return InvalidArgument("cannot learn the target triple of " + CommandLine(argv) + ": " +
                           LastLines(run.output, 3));
  }
  return t;
}

// Everything a tune needs, read and checked before any output is touched.
struct TunePlan {
  KernelSpec spec;
  Toolchain toolchain;
  std::vector<std::pair<std::string, int64_t>> shape;
  std::vector<std::string> args;
  std::vector<Config> configs;
  std::vector<TritonSources> triton;
  TestData data;
  std::string summary;  // how the configurations were chosen
};

Result<TunePlan> Prepare(const TuneRequest& req) {
  TunePlan p;
  KT_ASSIGN_OR_RETURN(p.spec, LoadKernelSpec(req.kernel, req.kernels_dir));
  KT_ASSIGN_OR_RETURN(p.toolchain, LoadToolchain(req.toolchain, req.toolchains_dir));
  KT_RETURN_IF_ERROR(CheckTools(p.toolchain, req.check));
  KT_ASSIGN_OR_RETURN(p.shape, ApplyShapeOverrides(p.spec, req.shape));
  KT_ASSIGN_OR_RETURN(p.args, ExpandArgs(p.spec, p.shape));
  if (req.triton.empty()) {
    KT_ASSIGN_OR_RETURN(Space space, EnumerateSpace(p.spec, {req.sample, req.seed}));
    p.configs = std::move(space.configs);
    p.summary = std::to_string(space.grid_size) + " in the grid, " +
                std::to_string(space.feasible) + " meet the constraints";
    if (req.sample) p.summary += ", " + std::to_string(p.configs.size()) + " sampled";
  } else {
    size_t dropped = 0;
    KT_ASSIGN_OR_RETURN(auto dirs, ScanTritonDir(req.triton, p.spec, &dropped));
    KT_ASSIGN_OR_RETURN(IrTarget target, ToolchainIrTarget(p.toolchain));
    const std::string host = MachineArch();
    for (const TritonConfig& c : dirs) {
      KT_ASSIGN_OR_RETURN(std::string ir, ReadFile(c.llir_path));
      KT_ASSIGN_OR_RETURN(std::string retargeted, RetargetIr(ir, target, host, c.llir_path));
      p.configs.push_back(c.config);
      p.triton.push_back({std::move(retargeted), fs::absolute(c.launcher_path).string()});
    }
    p.summary = std::to_string(dirs.size()) + " Triton configurations";
    if (dropped > 0) {
      p.summary += ", " + std::to_string(dropped) + (dropped == 1 ? " duplicate" : " duplicates") +
                   " dropped";
    }
  }
  std::vector<std::string> sources = p.spec.main_sources;
  if (req.triton.empty()) {
    sources.insert(sources.end(), p.spec.kernel_sources.begin(), p.spec.kernel_sources.end());
  }
  std::error_code ec;
  for (const std::string& s : sources) {
    if (!fs::is_regular_file(fs::path(p.spec.dir) / s, ec)) {
      return NotFound(p.spec.path + ": source " + s + " does not exist");
    }
  }
  for (const std::string& d : p.spec.include_dirs) {
    if (!fs::is_directory(fs::path(p.spec.dir) / d, ec)) {
      return NotFound(p.spec.path + ": include directory " + d + " does not exist");
    }
  }
  // data: auto gives binary files only to mains reading through ktune's loader (the loader's
  // own file, kernels/common/ktune_kernel.c, calls it too and does not count).
  bool main_calls_loader = false;
  for (const std::string& s : p.spec.main_sources) {
    if (fs::path(s).filename() == "ktune_kernel.c") continue;
    KT_ASSIGN_OR_RETURN(std::string text, ReadFile((fs::path(p.spec.dir) / s).string()));
    main_calls_loader = main_calls_loader || CallsKtuneLoader(text);
  }
  KT_ASSIGN_OR_RETURN(
      p.data, MakeTestData(p.spec, p.shape, ResolveDataFormat(p.spec.data, main_calls_loader)));
  return p;
}

// Removes what an earlier khost tune numbered from 0 (host/results/test_data_files.h): every `_0`
// file, and the current tensors' files under their old numbers unless they are written now. Returns
// how many went.
Result<size_t> RemoveOldNumbering(const TestData& data, const std::string& dir) {
  KT_ASSIGN_OR_RETURN(std::vector<std::string> old, OldNumberedTestData(dir));
  if (old.empty()) return size_t{0};
  std::vector<std::string> written;
  for (const auto& file : data.files) written.push_back(file.first);
  for (const std::string& name : written) {
    const auto f = ParseTestDataFileName(name);
    if (!f || f->index == 0) continue;
    for (bool binary : {false, true}) {
      std::string former = TestDataFileName(f->rows, f->cols, f->index - 1, binary);
      if (f->index - 1 > 0 && std::find(written.begin(), written.end(), former) == written.end())
        old.push_back(std::move(former));
    }
  }
  size_t removed = 0;
  for (const std::string& name : old) {
    std::error_code ec;
    if (fs::remove(dir + "/" + name, ec)) ++removed;
    if (ec) return IoError("removing " + dir + "/" + name + ": " + ec.message());
  }
  return removed;
}

Status WriteTestData(const TestData& data, const std::string& dir) {
  KT_RETURN_IF_ERROR(MakeDirs(dir));
  KT_ASSIGN_OR_RETURN(size_t removed, RemoveOldNumbering(data, dir));
  if (removed > 0) {
    std::cout << "removed " << removed << " test data file" << (removed == 1 ? "" : "s")
              << " an earlier khost tune numbered from 0 (tensors are numbered from 1 now)\n";
  }
  for (const auto& [name, bytes] : data.files) {
    KT_RETURN_IF_ERROR(WriteFileIfChanged(dir + "/" + name, bytes));
    // The kernels read .bin before .txt: the same tensor in the other format must go.
    const bool bin = name.size() > 4 && name.substr(name.size() - 4) == ".bin";
    std::error_code ec;
    fs::remove(dir + "/" + name.substr(0, name.size() - 4) + (bin ? ".txt" : ".bin"), ec);
  }
  return Status::Ok();
}

// Runs every built variant as the agent would (cwd = root, the spec's argv) and checks that it
// prints "out OK" and exits 0. Returns how many failed.
size_t CheckVariants(const TunePlan& p, const std::string& root, const std::string& bin_dir,
                     const std::vector<VariantJob>& jobs, const std::vector<VariantBuild>& builds,
                     size_t parallel, double timeout_seconds) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (builds[i].state != BuildState::kFailed) todo.push_back(i);
  }
  std::atomic<size_t> failed{0};
  std::mutex mu;
  ParallelFor(todo.size(), parallel, [&](size_t n) {
    const VariantJob& job = jobs[todo[n]];
    std::vector<std::string> argv = p.toolchain.emulator;
    argv.push_back(bin_dir + "/" + job.elf_name);
    argv.insert(argv.end(), p.args.begin(), p.args.end());
    ToolOptions options{.cwd = root,
                        .stdout_path = job.work_dir + "/check.log",
                        .stderr_too = true,
                        .timeout_seconds = timeout_seconds};
    Result<ToolRun> run = RunTool(argv, options);
    std::string problem;
    if (!run.ok()) {
      problem = run.status().message();
    } else if (std::string why = OutputCheckProblem(run->output); !why.empty()) {
      problem = std::move(why);
    } else if (run->exit_code != 0) {
      problem = run->exit_code < 0 ? "killed by a signal"
                                   : "exit status " + std::to_string(run->exit_code);
    }
    if (problem.empty()) return;
    ++failed;
    std::lock_guard<std::mutex> lock(mu);
    std::cerr << "khost tune: check " << job.elf_name << ": " << problem << "\n";
    if (run.ok()) std::cerr << LastLines(run->output, 5) << "\n";
  });
  return failed;
}

}  // namespace

Result<TuneRequest> ParseTuneArgs(const Args& args) {
  cxxopts::Options o = TuneCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, {"kernel"}));
  TuneRequest req;
  req.kernel = r["kernel"].as<std::string>();
  req.root = r["root"].as<std::string>();
  req.toolchain = r["toolchain"].as<std::string>();
  req.jobs = r["jobs"].as<size_t>();
  if (r.count("sample")) {
    req.sample = r["sample"].as<size_t>();
    if (*req.sample == 0) return InvalidArgument("--sample must be at least 1");
  }
  req.seed = r["seed"].as<uint64_t>();
  if (r.count("shape")) req.shape = r["shape"].as<std::vector<std::string>>();
  if (r.count("triton")) req.triton = r["triton"].as<std::string>();
  req.check = r.count("check") > 0;
  req.check_timeout_seconds = r["check-timeout"].as<double>();
  if (!(req.check_timeout_seconds > 0 && req.check_timeout_seconds <= 1e6)) {
    return InvalidArgument("--check-timeout must be between 0 and 1e6 seconds");
  }
  req.kernels_dir = r["kernels"].as<std::string>();
  req.toolchains_dir = r["toolchains"].as<std::string>();
  if (req.triton.size() && req.sample) {
    return InvalidArgument("--sample chooses from the grid; --triton builds the given directories");
  }
  req.apply_best = r.count("apply-best") > 0;
  req.run_id = r["run"].as<std::string>();
  if (!req.run_id.empty() && !req.apply_best)
    return InvalidArgument("--run goes with --apply-best");
  return req;
}

namespace {

// khost tune --apply-best: the run's winner (host/report/analysis.h) into the spec and launcher
// constants beside it.
Status ApplyBest(const TuneRequest& req) {
  KT_ASSIGN_OR_RETURN(std::string spec_path, KernelSpecPath(req.kernel, req.kernels_dir));
  auto read = ReadFile(spec_path);
  if (!read.ok()) return NotFound("no kernel spec " + spec_path + ": " + read.status().message());
  const std::string text = std::move(read).value();
  // Read without its best: line, which this replaces (an old one may no longer fit the spec).
  KT_ASSIGN_OR_RETURN(KernelSpec spec, ParseKernelSpec(WithoutBestLine(text), spec_path));
  KT_ASSIGN_OR_RETURN(LoadedRun run, LoadRun(req.root + "/" + spec.name + "/run", req.run_id));
  const RunReport report = BuildReport(run.rows, run.metrics);
  KT_ASSIGN_OR_RETURN(Analysis a, Analyze(report));
  const VariantSummary& winner = report.variants[a.ranking.front().variant];
  Config config;
  std::string best_line = "best:";
  for (const SpecParam& p : spec.params) {
    auto it = std::find_if(winner.params.begin(), winner.params.end(),
                           [&](const auto& kv) { return kv.first == p.name; });
    Result<int64_t> v =
        it == winner.params.end() ? Result<int64_t>(NotFound("")) : ParseInt64(it->second);
    if (!v.ok()) {
      return NotFound("run " + a.run_id + "'s winner " + winner.name + " has no value of " +
                      p.name + ": were its variants tuned from " + spec.path + "?");
    }
    config.push_back(*v);
    best_line += " " + p.name + "=" + std::to_string(*v);
  }
  // Only a configuration the spec can build now: its candidates and constraints may have changed
  // since the run.
  KT_ASSIGN_OR_RETURN(Space space, EnumerateSpace(spec, {}));
  if (std::find(space.configs.begin(), space.configs.end(), config) == space.configs.end()) {
    return InvalidArgument("run " + a.run_id + "'s winner (" + best_line.substr(6) +
                           ") is not a configuration of " + spec.path +
                           " as it is now (its candidates or constraints changed?): nothing "
                           "written");
  }
  std::string comment = "# khost tune --apply-best: run " + a.run_id + ", " + winner.name + ", " +
                        a.time_name + " " + FormatTime(a.ranking.front().median, a.time_unit);
  if (a.verdict) {
    comment += a.verdict->distinguishable ? ", faster than the runner-up"
                                          : ", not distinguishable from the runner-up";
  }
  const std::string updated = WithBestLine(text, comment, best_line);
  KT_RETURN_IF_ERROR(ParseKernelSpec(updated, spec.path).status());  // still a valid spec
  KT_RETURN_IF_ERROR(
      WriteFileAtomic(spec.dir + "/best_constants.c", ConstantsSource(spec, config)));
  KT_RETURN_IF_ERROR(
      WriteFileAtomic(spec.dir + "/best_blk_constants.json", BlkConstantsJson(spec, config)));
  KT_RETURN_IF_ERROR(WriteFileAtomic(spec.path, updated));
  std::cout << "applied the winner of run " << a.run_id << " to " << spec.path << ": " << best_line
            << "\n"
            << "wrote " << spec.dir << "/best_constants.c and best_blk_constants.json\n";
  if (a.verdict) std::cout << "verdict: " << a.verdict->text << "\n";
  return Status::Ok();
}

}  // namespace

Status ExecuteTune(const TuneRequest& req) {
  if (req.apply_best) return ApplyBest(req);
  const auto start = std::chrono::steady_clock::now();
  KT_ASSIGN_OR_RETURN(TunePlan p, Prepare(req));
  const std::string run_dir = req.root + "/" + p.spec.name + "/run";
  const std::string bin_dir = fs::absolute(run_dir + "/bin").lexically_normal().string();
  KT_RETURN_IF_ERROR(WriteTestData(p.data, run_dir + "/test_data"));
  KT_RETURN_IF_ERROR(MakeDirs(bin_dir));
  KT_ASSIGN_OR_RETURN(std::string shared_key, SharedKey(p.spec, p.toolchain));
  const std::vector<VariantJob> jobs =
      PlanVariants(p.spec, p.toolchain, p.configs, p.triton, run_dir);
  const size_t parallel =
      req.jobs > 0 ? req.jobs : std::max<size_t>(1, std::thread::hardware_concurrency());
  std::cout << "tune " << p.spec.name << " with " << p.toolchain.name << ": " << jobs.size()
            << " variants (" << p.summary << "), " << parallel << " parallel builds\n"
            << "test data: " << DescribeTestData(p.spec, p.data) << " in " << run_dir
            << "/test_data\n";

  Progress progress(jobs.size(), isatty(2));
  size_t finished = 0, built = 0, cached = 0, failed = 0;
  const std::vector<VariantBuild> builds = BuildVariants(
      p.spec, p.toolchain, jobs, shared_key, bin_dir, parallel,
      [&](size_t i, const VariantBuild& b) {
        ++finished;
        if (b.state == BuildState::kBuilt) ++built;
        if (b.state == BuildState::kCached) ++cached;
        if (b.state == BuildState::kFailed) {
          ++failed;
          progress.Note("khost tune: " + jobs[i].elf_name + " failed to build:\n" + b.message);
        }
        progress.Update(finished, jobs[i].elf_name);
      });
  progress.Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "built " << built << ", up to date " << cached << ", failed " << failed << " in "
            << Seconds(seconds) << " -> " << bin_dir << "\n";
  // Written even when every variant failed: an old configs.json would have khost run measure
  // variants built from other sources.
  KT_RETURN_IF_ERROR(
      WriteFileAtomic(run_dir + "/configs.json", ConfigsJson(p.spec, jobs, builds, p.args)));
  size_t check_failed = 0;
  if (req.check && built + cached > 0) {
    check_failed =
        CheckVariants(p, req.root, bin_dir, jobs, builds, parallel, req.check_timeout_seconds);
    std::cout << "check: " << (built + cached - check_failed) << " of " << (built + cached)
              << " variants print 'out OK' and exit 0"
              << (p.toolchain.emulator.empty() ? "" : " under " + p.toolchain.emulator[0]) << "\n";
  }
  if (failed > 0) {
    return InvalidArgument(std::to_string(failed) + " of " + std::to_string(jobs.size()) +
                           " variants failed to build (their errors are above)");
  }
  if (check_failed > 0) {
    return InvalidArgument(std::to_string(check_failed) + " of " + std::to_string(built + cached) +
                           " variants failed their check (see above)");
  }
  return Status::Ok();
}

int TuneMain(const Args& args) {
  return CommandMain("tune", TuneCliOptions, ParseTuneArgs, ExecuteTune, args);
}

}  // namespace ktune::host
