#include "host/tune/tune_run.h"

#include <unistd.h>

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
#include "common/results.h"
#include "common/strings.h"
#include "host/results/kernel_dir.h"
#include "host/results/test_data_files.h"
#include "host/tune/triton.h"
#include "host/util/progress.h"
#include "host/util/subprocess.h"

namespace ktune::host {
namespace fs = std::filesystem;

namespace {

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

// The configurations of the spec's grid that meet its constraints, sampled when asked.
Status ChooseFromGrid(const TuneOptions& o, const std::vector<Shape>& shapes, TunePlan* p) {
  KT_ASSIGN_OR_RETURN(Space space, EnumerateSpace(p->spec, {o.sample, o.seed, shapes}));
  p->configs = std::move(space.configs);
  p->summary = std::to_string(space.grid_size) + " in the grid, " + std::to_string(space.feasible) +
               " meet the constraints" + (shapes.size() > 1 ? " at one shape at least" : "");
  if (o.sample) p->summary += ", " + std::to_string(p->configs.size()) + " sampled";
  return Status::Ok();
}

// The Triton-CPU configuration directories under `dir`, their IR retargeted for the toolchain.
Status ReadTritonConfigs(const std::string& dir, TunePlan* p) {
  size_t dropped = 0;
  KT_ASSIGN_OR_RETURN(auto dirs, ScanTritonDir(dir, p->spec, &dropped));
  KT_ASSIGN_OR_RETURN(IrTarget target, ToolchainIrTarget(p->toolchain));
  const std::string host = MachineArch();
  for (const TritonConfig& c : dirs) {
    KT_ASSIGN_OR_RETURN(std::string ir, ReadFile(c.llir_path));
    KT_ASSIGN_OR_RETURN(std::string retargeted, RetargetIr(ir, target, host, c.llir_path));
    p->configs.push_back(c.config);
    p->triton.push_back({std::move(retargeted), fs::absolute(c.launcher_path).string()});
  }
  p->summary = std::to_string(dirs.size()) + " Triton configurations";
  if (dropped > 0) {
    p->summary +=
        ", " + std::to_string(dropped) + (dropped == 1 ? " duplicate" : " duplicates") + " dropped";
  }
  return Status::Ok();
}

// The spec's sources (its kernel sources too unless Triton's IR replaces them) and include
// directories must exist.
Status CheckSpecFiles(const KernelSpec& spec, bool with_kernel_sources) {
  std::vector<std::string> sources = spec.main_sources;
  if (with_kernel_sources) {
    sources.insert(sources.end(), spec.kernel_sources.begin(), spec.kernel_sources.end());
  }
  std::error_code ec;
  for (const std::string& s : sources) {
    if (!fs::is_regular_file(fs::path(spec.dir) / s, ec)) {
      return NotFound(spec.path + ": source " + s + " does not exist");
    }
  }
  for (const std::string& d : spec.include_dirs) {
    if (!fs::is_directory(fs::path(spec.dir) / d, ec)) {
      return NotFound(spec.path + ": include directory " + d + " does not exist");
    }
  }
  return Status::Ok();
}

// Whether a main reads through ktune's loader, for data: auto (the loader's own file,
// kernels/common/ktune_kernel.c, calls it too and does not count).
Result<bool> MainCallsLoader(const KernelSpec& spec) {
  bool calls = false;
  for (const std::string& s : spec.main_sources) {
    if (fs::path(s).filename() == "ktune_kernel.c") continue;
    KT_ASSIGN_OR_RETURN(std::string text, ReadFile((fs::path(spec.dir) / s).string()));
    calls = calls || CallsKtuneLoader(text);
  }
  return calls;
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

// The builds of every job, counted as they finish; progress on stderr.
struct BuildCounts {
  std::vector<VariantBuild> builds;
  size_t built = 0, cached = 0, failed = 0, skipped = 0;
  bool kernel_undefined = false;  // a link lacked the kernel
  size_t usable() const { return built + cached; }
};

BuildCounts BuildWithProgress(const TunePlan& p, const std::vector<VariantJob>& jobs,
                              const std::string& shared_key, const std::string& bin_dir,
                              size_t parallel) {
  BuildCounts n;
  Progress progress(jobs.size(), isatty(2));
  size_t finished = 0;
  n.builds = BuildVariants(
      p.spec, p.toolchain, jobs, shared_key, bin_dir, parallel,
      [&](size_t i, const VariantBuild& b) {
        ++finished;
        if (b.state == BuildState::kBuilt) ++n.built;
        if (b.state == BuildState::kCached) ++n.cached;
        if (b.skipped) {
          ++n.skipped;
        } else if (b.state == BuildState::kFailed) {
          ++n.failed;
          n.kernel_undefined = n.kernel_undefined || b.kernel_undefined;
          progress.Note("khost tune: " + jobs[i].elf_name + " failed to build:\n" + b.message);
        }
        progress.Update(finished, jobs[i].elf_name);
      });
  progress.Finish();
  return n;
}

// Runs every built variant at every shape it runs at as the agent would (cwd = root, the shape's
// argv and test data) and checks that it prints "out OK" and exits 0.
struct Checked {
  size_t runs = 0, failed = 0;
};
Checked CheckVariants(const TunePlan& p, const std::string& root, const std::string& bin_dir,
                      const std::vector<VariantJob>& jobs, const std::vector<VariantBuild>& builds,
                      size_t parallel, double timeout_seconds) {
  std::vector<std::pair<size_t, size_t>> todo;  // (job, shape)
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (builds[i].state == BuildState::kFailed) continue;
    for (size_t k = 0; k < p.shapes.size(); ++k) {
      if (!p.shapes[k].excluded.count(jobs[i].config)) todo.emplace_back(i, k);
    }
  }
  std::atomic<size_t> failed{0};
  std::mutex mu;
  ParallelFor(todo.size(), parallel, [&](size_t n) {
    const VariantJob& job = jobs[todo[n].first];
    const ShapeRun& shape = p.shapes[todo[n].second];
    const bool several = p.shapes.size() > 1;
    std::vector<std::string> argv = p.toolchain.emulator;
    argv.push_back(bin_dir + "/" + job.elf_name);
    argv.insert(argv.end(), shape.args.begin(), shape.args.end());
    ToolOptions options{
        .cwd = root,
        .stdout_path = job.work_dir + "/check" +
                       (several ? "-" + std::to_string(todo[n].second) : std::string()) + ".log",
        .stderr_too = true,
        .timeout_seconds = timeout_seconds,
        .env = {"KTUNE_TEST_DATA=" + RunDirUnderRoot(p.spec.name) + "/" + shape.test_data}};
    Result<ToolRun> run = RunTool(argv, options);
    std::string problem;
    if (!run.ok()) {
      problem = run.status().message();
    } else if (run->signal) {  // a crash is said as one, whatever it printed before
      problem = "killed by " + SignalName(run->signal);
    } else if (std::string why = OutputCheckProblem(run->output); !why.empty()) {
      problem = std::move(why) +
                (run->exit_code ? " (exit status " + std::to_string(run->exit_code) + ")" : "");
    } else if (run->exit_code != 0) {
      problem = "exit status " + std::to_string(run->exit_code);
    }
    if (problem.empty()) return;
    ++failed;
    std::lock_guard<std::mutex> lock(mu);
    std::cerr << "khost tune: check " << job.elf_name
              << (several ? " at " + ShapeLabel(ShapeParams(shape.shape)) : std::string()) << ": "
              << problem << "\n";
    if (run.ok()) std::cerr << LastLines(run->output, 5) << "\n";
  });
  return {todo.size(), failed.load()};
}

// The run's end: an error when a variant failed to build or a check (of `checked`: variants, or
// runs of variants at shapes).
Status Outcome(const KernelSpec& spec, size_t variants, const BuildCounts& n, size_t check_failed,
               const std::string& checked) {
  if (n.kernel_undefined) return KernelUndefinedError(spec, n.skipped);
  if (n.failed > 0) {
    return InvalidArgument(std::to_string(n.failed) + " of " + std::to_string(variants) +
                           " variants failed to build (their errors are above)");
  }
  if (check_failed > 0) {
    return InvalidArgument(std::to_string(check_failed) + " of " + checked +
                           " failed their check (see above)");
  }
  return Status::Ok();
}

}  // namespace

Result<TunePlan> PrepareTune(const TuneOptions& o) {
  TunePlan p;
  KT_ASSIGN_OR_RETURN(p.spec, LoadKernelSpec(o.kernel, o.kernels_dir));
  KT_ASSIGN_OR_RETURN(p.toolchain, LoadToolchain(o.toolchain, o.toolchains_dir));
  if (!o.launcher.empty()) p.toolchain.launcher = o.launcher;
  KT_RETURN_IF_ERROR(CheckTools(p.toolchain, o.check));
  std::vector<ShapeSet> file_sets;
  if (!o.shapes_file.empty()) {
    KT_ASSIGN_OR_RETURN(file_sets, ReadShapesFile(o.shapes_file));
  }
  KT_ASSIGN_OR_RETURN(const std::vector<Shape> shapes, ResolveShapes(p.spec, o.shape, file_sets));
  KT_RETURN_IF_ERROR(o.triton.empty() ? ChooseFromGrid(o, shapes, &p)
                                      : ReadTritonConfigs(o.triton, &p));
  KT_RETURN_IF_ERROR(CheckSpecFiles(p.spec, /*with_kernel_sources=*/o.triton.empty()));
  KT_ASSIGN_OR_RETURN(const bool main_calls_loader, MainCallsLoader(p.spec));
  // Several shapes' data lie in directories of their own, which only ktune's loader finds
  // (through KTUNE_TEST_DATA): a main reading <kernel>/run/test_data itself would read nothing.
  if (shapes.size() > 1 && !main_calls_loader &&
      (!p.spec.inputs.empty() || !p.spec.outputs.empty())) {
    return InvalidArgument(p.spec.path + ": several shapes need a main that reads its data " +
                           "through kernels/common/ktune_kernel.h (it reads each shape's " +
                           "directory from KTUNE_TEST_DATA); tune one shape at a time");
  }
  const DataFormat format = ResolveDataFormat(p.spec.data, main_calls_loader);
  for (const Shape& shape : shapes) {
    const std::string at = shapes.size() > 1 ? "shape " + ShapeLabel(ShapeParams(shape)) : "";
    ShapeRun run;
    run.shape = shape;
    auto args = ExpandArgs(p.spec, shape);
    if (!args.ok()) return at.empty() ? args.status() : args.status().WithContext(at);
    run.args = std::move(args).value();
    // The spec's names and positive values always make a directory name.
    run.test_data =
        shapes.size() > 1 ? "test_data/" + ShapeDirName(ShapeParams(shape)) : "test_data";
    if (o.triton.empty()) {  // Triton-CPU's configurations are taken as they are
      for (const Config& c : p.configs) {
        KT_ASSIGN_OR_RETURN(const bool runs, Satisfies(p.spec, c, shape));
        if (!runs) run.excluded.insert(c);
      }
    }
    if (p.spec.flops || p.spec.bytes) {
      for (const Config& c : p.configs) {
        if (run.excluded.count(c)) continue;
        KT_ASSIGN_OR_RETURN(run.work[c], WorkOf(p.spec, c, shape));
      }
    }
    auto data = MakeTestData(p.spec, shape, format);
    if (!data.ok()) return at.empty() ? data.status() : data.status().WithContext(at);
    p.data.push_back(std::move(data).value());
    p.shapes.push_back(std::move(run));
  }
  return p;
}

Status WriteShapesTestData(const TunePlan& plan, const std::string& run_dir) {
  for (size_t k = 0; k < plan.shapes.size(); ++k) {
    KT_RETURN_IF_ERROR(WriteTestData(plan.data[k], run_dir + "/" + plan.shapes[k].test_data));
  }
  return Status::Ok();
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

Status RunTune(const TuneOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  KT_ASSIGN_OR_RETURN(TunePlan p, PrepareTune(o));
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(o.root, p.spec.name));
  const std::string bin_dir = fs::absolute(run_dir + "/bin").lexically_normal().string();
  KT_RETURN_IF_ERROR(WriteShapesTestData(p, run_dir));
  KT_RETURN_IF_ERROR(MakeDirs(bin_dir));
  KT_ASSIGN_OR_RETURN(std::string shared_key, SharedKey(p.spec, p.toolchain));
  const std::vector<VariantJob> jobs =
      PlanVariants(p.spec, p.toolchain, p.configs, p.triton, run_dir);
  const BuildSlots slots = BuildParallelism(p.toolchain, o.jobs);
  const size_t parallel = slots.count;
  const size_t checks =
      o.jobs > 0 ? o.jobs : std::max<size_t>(1, std::thread::hardware_concurrency());
  std::cout << "tune " << p.spec.name << " with " << p.toolchain.name << ": " << jobs.size()
            << " variants (" << p.summary << "), " << parallel << " parallel builds"
            << (p.toolchain.launcher.empty()
                    ? ""
                    : " through " + CommandLine(p.toolchain.launcher) + " (" + slots.source + ")")
            << "\n"
            << "test data: " << DescribeTestData(p.spec, p.data[0]) << " in " << run_dir
            << (p.shapes.size() > 1 ? "/test_data/<shape>, for each of " +
                                          std::to_string(p.shapes.size()) + " shapes"
                                    : "/test_data")
            << "\n";

  const BuildCounts n = BuildWithProgress(p, jobs, shared_key, bin_dir, parallel);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "built " << n.built << ", up to date " << n.cached << ", failed " << n.failed
            << (n.skipped ? ", not built " + std::to_string(n.skipped) : "") << " in "
            << Seconds(seconds) << " -> " << bin_dir << "\n";
  // Written even when every variant failed: an old configs.json would have khost run measure
  // variants built from other sources.
  KT_RETURN_IF_ERROR(WriteFileAtomic(
      run_dir + "/configs.json",
      ConfigsJson(p.spec, jobs, n.builds, p.shapes, BuildRecord(p.spec, p.toolchain, shared_key))));
  Checked check;
  std::string checked;
  if (o.check && n.usable() > 0) {
    check = CheckVariants(p, o.root, bin_dir, jobs, n.builds, checks, o.check_timeout_seconds);
    checked = std::to_string(check.runs) +
              (p.shapes.size() > 1 ? " runs (" + std::to_string(n.usable()) + " variants at " +
                                         std::to_string(p.shapes.size()) + " shapes)"
                                   : std::string(" variants"));
    std::cout << "check: " << (check.runs - check.failed) << " of " << checked
              << " print 'out OK' and exit 0"
              << (p.toolchain.emulator.empty() ? "" : " under " + p.toolchain.emulator[0]) << "\n";
  }
  return Outcome(p.spec, jobs.size(), n, check.failed, checked);
}

}  // namespace ktune::host
