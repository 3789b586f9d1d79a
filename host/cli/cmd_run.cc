// khost run <kernel>: pushes the kernel's bundle (only what the agent lacks), measures every
// variant on the agent and writes each row to <kernel>/run/results/<run_id>.csv as it arrives;
// then writes the seed's perf_stats.csv (configs.json's perf_files.stat) and prints the table.
// khost run <kernel> --resume: the same for a run that stopped early, from the rows the agent's
// journal holds; the agent measures only what is missing.
// khost run <kernel> --agents a,b: the variants spread over several agents (host/measure/sweep.h).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "common/events.h"
#include "common/fs.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_run.h"
#include "host/cli/measure_options.h"
#include "host/db/run_recorder.h"
#include "host/measure/run_service.h"
#include "host/report/perf_stats.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "host/results/shape_sets.h"
#include "host/util/subprocess.h"
#include "host/util/user_paths.h"
#include "protocol/convert.h"

namespace ktune::host {

cxxopts::Options RunCliOptions() {
  cxxopts::Options o("khost run", "Measure every variant of a kernel on an agent.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  AddMeasureOptions(o, /*order_seed=*/true);
  o.add_options()(
      "resume",
      "fetch a run stopped early (khost killed, link lost, agent restarted) and measure only "
      "what it lacks, as it was asked; the newest run unless --run names one")(
      "run", "with --resume: the run id", cxxopts::value<std::string>()->default_value(""))(
      "agents",
      "spread the variants over these agents (names or HOST:PORT, comma-separated), which must "
      "share a CPU fingerprint; an agent that drops out has its share moved to the others",
      cxxopts::value<std::string>()->default_value(""))(
      "allow-mixed", "with --agents: sweep over agents of different CPU fingerprints")(
      "shape",
      "only the variants at this shape, 'M=64 N=64' (of those khost tune --shapes built; "
      "repeatable)",
      cxxopts::value<std::vector<std::string>>())(
      "shapes", "only the variants at the shapes of this file (one per line)",
      cxxopts::value<std::string>());
  AddRootOption(o);
  AddAgentOption(o);
  AddDbOption(o);
  return o;
}

Result<RunOptions> ParseRunArgs(const Args& args) {
  cxxopts::Options o = RunCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  RunOptions opts;
  opts.kernel = r["kernel"].as<std::string>();
  opts.root = r["root"].as<std::string>();
  opts.agent = r["agent"].as<std::string>();
  opts.token_file = r["token-file"].as<std::string>();
  opts.db = r["db"].as<std::string>();
  opts.resume = r.count("resume") > 0;
  opts.run_id = r["run"].as<std::string>();
  if (const std::string agents = r["agents"].as<std::string>(); !agents.empty()) {
    if (!opts.agent.empty()) return InvalidArgument("--agent and --agents are alternatives");
    KT_ASSIGN_OR_RETURN(opts.agents, ParseAgentList(agents));
  }
  opts.allow_mixed = r.count("allow-mixed") > 0;
  if (opts.allow_mixed && opts.agents.size() < 2) {
    return InvalidArgument("--allow-mixed goes with --agents of two or more agents");
  }
  if (opts.resume) {
    std::vector<std::string> fixed = MeasureOptionNames(/*order_seed=*/true);
    fixed.insert(fixed.end(), {"agents", "allow-mixed", "shape", "shapes"});
    for (const std::string& o : fixed) {
      if (r.count(o)) {
        return InvalidArgument("--resume measures the run as it was asked; --" + o +
                               " cannot change it");
      }
    }
    return opts;
  }
  if (!opts.run_id.empty()) return InvalidArgument("--run goes with --resume");
  if (r.count("shape")) opts.shape = r["shape"].as<std::vector<std::string>>();
  if (r.count("shapes")) opts.shapes_file = r["shapes"].as<std::string>();
  for (const std::string& s : opts.shape) {
    auto set = ParseShapeSet(s);
    if (!set.ok()) return set.status().WithContext("--shape " + s);
    if (set->empty()) return InvalidArgument("--shape '" + s + "': expected NAME=VALUE");
  }
  KT_RETURN_IF_ERROR(ParseMeasureOptions(r, &opts, /*order_seed=*/true));
  if (opts.adaptive && !opts.agents.empty()) {
    return InvalidArgument(
        "--reps auto races the variants of one agent; it cannot go with --agents");
  }
  return opts;
}

namespace {

// How khost run ends, for a new run and a resumed one: the seed's perf_stats.csv (configs.json's
// perf_files.stat) and the table, from the rows and metadata the run service received.
Status Conclude(const KernelDir& dir, const ReceivedRun& got) {
  const LoadedRun& run = got.run;
  if (run.rows.empty()) return NotFound(run.path + " holds no results");
  PrintRunWarnings("run", run);
  RunReport report = BuildRunReport(run);
  AddRace(run, &report);
  KT_ASSIGN_OR_RETURN(const std::string perf_stats,
                      WritePerfStatsFile(dir, report, run.rows, got.profiles));
  if (!perf_stats.empty()) std::cerr << "khost run: wrote " << perf_stats << "\n";
  std::cout << RenderTable(report, false, ConsoleWidth(false));
  if (got.sampled) {
    std::cerr << "khost run: samples in " << SamplesPath(run.path)
              << " (khost report --samples, --annotate VARIANT)\n";
  }
  return SomeVariantValid(report, run.path);
}

// Said after an error that cut a run short.
std::string HowToResumeRun(const RunOptions& opts, const std::string& run_id) {
  std::vector<std::string> argv = {"khost", "run", opts.kernel};
  if (opts.root != ".") argv.insert(argv.end(), {"--root", opts.root});
  argv.insert(argv.end(), {"--resume", "--run", run_id});
  if (!opts.agent.empty()) argv.insert(argv.end(), {"--agent", opts.agent});
  if (!opts.token_file.empty()) argv.insert(argv.end(), {"--token-file", opts.token_file});
  return CommandLine(argv) + " fetches what the agent measured and measures the rest";
}

// khost run --resume: the rows of a run stopped early, and what it lacks, measured as it was asked.
Status ExecuteResume(const RunOptions& opts, const KernelDir& dir, RunRecorder& recorder) {
  KT_ASSIGN_OR_RETURN(
      const ReceivedRun got,
      FetchRun({.command = "khost run",
                .kernel = opts.kernel,
                .run_dir = dir.run_dir,
                .run_id = opts.run_id,
                .resume = true,
                .refuse_complete = true,
                .agent = opts.agent,
                .token_file = opts.token_file,
                .dir = &dir,
                .show_progress = ::isatty(2) != 0,
                .how_to_resume = [&](const std::string& id) { return HowToResumeRun(opts, id); },
                .recorder = &recorder}));
  std::cerr << "khost run: resumed run " << std::filesystem::path(got.run.path).stem().string()
            << ": " << got.rows_new << " new rows, " << got.run.rows.size() << " of "
            << got.rows_planned << " in " << got.run.path << "\n";
  return Conclude(dir, got);
}

}  // namespace

Status ExecuteRun(const RunOptions& opts) {
  KT_ASSIGN_OR_RETURN(const std::optional<DbChoice> db, DbFor(opts.db));
  RunRecorder recorder("khost run", db, opts.root);
  if (opts.resume) {
    KT_ASSIGN_OR_RETURN(const KernelDir dir, LoadKernelDir(opts.root, opts.kernel));
    return ExecuteResume(opts, dir, recorder);
  }
  KT_ASSIGN_OR_RETURN(
      const MeasuredKernel measured,
      MeasureKernel(
          {.root = opts.root,
           .kernel = opts.kernel,
           .shape = opts.shape,
           .shapes_file = opts.shapes_file,
           .agents = opts.agents.empty() ? std::vector<std::string>{opts.agent} : opts.agents,
           .token_file = opts.token_file,
           .allow_mixed = opts.allow_mixed,
           .run = {.command = "khost run",
                   .measure = opts,
                   .show_progress = ::isatty(2) != 0,
                   .how_to_resume = [&](const std::string& id) { return HowToResumeRun(opts, id); },
                   .recorder = &recorder}}));
  const size_t rows = measured.got.run.rows.size();
  std::cerr << "khost run: " << rows << (rows == 1 ? " row in " : " rows in ")
            << measured.got.run.path << "\n";
  return Conclude(measured.dir, measured.got);
}

int RunMain(const Args& args) {
  return CommandMain("run", RunCliOptions, ParseRunArgs, ExecuteRun, args);
}

}  // namespace ktune::host
