// khost run <kernel>: pushes the kernel's bundle (only what the agent lacks), measures every
// variant on the agent and writes each row to <kernel>/run/results/<run_id>.csv as it arrives;
// then writes the seed's perf_stats.csv (configs.json's perf_files.stat) and prints the table.
// khost run <kernel> --resume: the same for a run that stopped early, from the rows the agent's
// journal holds; the agent measures only what is missing.
// khost run <kernel> --agents a,b: the variants spread over several agents (host/remote/sweep.h).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include "common/events.h"
#include "common/fs.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/command.h"
#include "host/cli/measure_options.h"
#include "host/remote/agent_locator.h"
#include "host/remote/run_receiver.h"
#include "host/remote/sweep.h"
#include "host/report/report.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "host/tune/shapes.h"
#include "host/util/subprocess.h"
#include "host/util/user_paths.h"
#include "protocol/convert.h"

namespace ktune::host {

cxxopts::Options RunCliOptions() {
  cxxopts::Options o("khost run", "Measure every variant of a kernel on an agent.");
  o.add_options()("kernel", "kernel name", cxxopts::value<std::string>());
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
  o.positional_help("<kernel>");
  return o;
}

Result<RunOptions> ParseRunArgs(const Args& args) {
  cxxopts::Options o = RunCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, {"kernel"}));
  RunOptions opts;
  opts.kernel = r["kernel"].as<std::string>();
  opts.root = r["root"].as<std::string>();
  opts.agent = r["agent"].as<std::string>();
  opts.token_file = r["token-file"].as<std::string>();
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
// perf_files.stat) and the table, from the run's file.
Status Conclude(const KernelDir& dir, const std::string& kernel, const std::string& results_path,
                bool sampled) {
  KT_ASSIGN_OR_RETURN(const LoadedRun run, LoadRun(dir.run_dir, results_path));
  PrintRunWarnings("run", run);
  RunReport report = BuildReport(run.rows, run.metrics);
  AddRace(run, &report);
  if (!dir.perf_stat_path.empty()) {
    KT_RETURN_IF_ERROR(CheckBeneath(dir.root, dir.perf_stat_path));
    const std::string path = dir.root + "/" + dir.perf_stat_path;
    KT_RETURN_IF_ERROR(MakeDirs(std::filesystem::path(path).parent_path().string()));
    KT_ASSIGN_OR_RETURN(const std::vector<VariantSamples> symbolized,
                        LoadRunSamples(run.path, run.rows, dir.root, KernelSymbol(kernel)));
    KT_RETURN_IF_ERROR(WriteUserFile(
        path, RenderPerfStats(report, KernelPeriodColumns(symbolized, KernelSymbol(kernel)))));
    std::cerr << "khost run: wrote " << path << "\n";
  }
  std::cout << RenderTable(report, false, ConsoleWidth(false));
  if (sampled) {
    std::cerr << "khost run: samples in " << SamplesPath(run.path)
              << " (khost report --samples, --annotate VARIANT)\n";
  }
  // As hyperfine fails for a failing command: a run with nothing to compare is no success.
  if (!report.variants.empty() &&
      std::all_of(report.variants.begin(), report.variants.end(),
                  [](const VariantSummary& v) { return v.valid == 0; })) {
    const VariantSummary& first = report.variants.front();
    return InvalidArgument(
        "no variant ran correctly: all " + std::to_string(report.variants.size()) +
        " failed every repetition (" + first.name + ": " + first.failure +
        "; khost tune --check runs each variant once); the rows are in " + run.path);
  }
  return Status::Ok();
}

// The sessions of the agents named (one, for --agent or none), in order.
Result<std::vector<SweepAgent>> OpenAgents(const std::vector<std::string>& names,
                                           const std::string& token_file) {
  std::vector<SweepAgent> agents;
  for (const std::string& name : names) {
    KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(name, token_file));
    agents.push_back({name, std::move(session), {}});
  }
  return agents;
}

// How a run of several agents is described in its metadata: "a, b" and the CPU of each kind.
void DescribeAgents(const std::vector<SweepAgent>& agents, const std::vector<AgentPlan>& plans,
                    RunMeta& meta) {
  std::vector<std::string> names, cpus;
  for (size_t i = 0; i < agents.size(); ++i) {
    names.push_back(agents.size() == 1 ? agents[i].session.conn->where() : agents[i].session.name);
    const std::string cpu = DescribeCpu(plans[i].cpu);
    if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) cpus.push_back(cpu);
  }
  meta.agent = Join(names, ", ");
  meta.cpu = Join(cpus, "; ");
}

// Said after an error that cut a run short.
std::string HowToResume(const RunOptions& opts, const std::string& run_id) {
  std::vector<std::string> argv = {"khost", "run", opts.kernel};
  if (opts.root != ".") argv.insert(argv.end(), {"--root", opts.root});
  argv.insert(argv.end(), {"--resume", "--run", run_id});
  if (!opts.agent.empty()) argv.insert(argv.end(), {"--agent", opts.agent});
  if (!opts.token_file.empty()) argv.insert(argv.end(), {"--token-file", opts.token_file});
  return CommandLine(argv) + " fetches what the agent measured and measures the rest";
}

// khost run --resume of a run on one agent: its rows from the agent, which measures only what its
// journal lacks.
Result<ReceivedRun> ResumeOne(const RunOptions& opts, ReceiveSetup setup) {
  const std::string run_id = setup.meta.run_id, measured_on = setup.meta.agent;
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(opts.agent, opts.token_file));
  if (setup.meta.agent.empty()) setup.meta.agent = session.conn->where();
  wire::Envelope ask;
  ask.mutable_fetch_run()->set_run_id(run_id);
  ask.mutable_fetch_run()->set_resume(true);
  auto got = ReceiveRun(*session.conn, ask, std::move(setup));
  if (!got.ok() && got.status().code() == ErrorCode::kNotFound && !measured_on.empty()) {
    return got.status().WithContext("run " + run_id + " was measured on " + measured_on);
  }
  return got;
}

// khost run --resume: the rows of a run stopped early, and what it lacks, measured as it was asked.
Status ExecuteResume(const RunOptions& opts, const KernelDir& dir) {
  ReceiveSetup setup;
  setup.command = "khost run";
  KT_ASSIGN_OR_RETURN(setup.results_path, FindRunFile(dir.run_dir, opts.run_id));
  const std::string run_id = std::filesystem::path(setup.results_path).stem().string();
  if (auto meta = ReadRunMeta(RunMetaPath(setup.results_path)); meta.ok()) {
    setup.meta = std::move(meta).value();
  } else {
    setup.meta.run_id = run_id;
    setup.meta.kernel = opts.kernel;
  }
  // A sweep whose every variant arrived may still have journals to merge, of shards moved away.
  const bool unmerged = std::any_of(setup.meta.shards.begin(), setup.meta.shards.end(),
                                    [](const RunMeta::Shard& s) { return s.state == "moved"; });
  if (setup.meta.complete && !unmerged) {
    return InvalidArgument("run " + run_id + " is complete; nothing to resume");
  }
  setup.show_progress = ::isatty(2);
  setup.how_to_resume = HowToResume(opts, run_id);
  const Result<ReceivedRun> got = setup.meta.shards.empty()
                                      ? ResumeOne(opts, std::move(setup))
                                      : ResumeSweep(dir, opts.token_file, std::move(setup));
  if (!got.ok()) return got.status();
  const std::string results_path = ResultsPath(dir.run_dir, run_id);
  std::cerr << "khost run: resumed run " << run_id << ": " << got->rows_new << " new rows, "
            << got->rows.size() << " of " << got->rows_planned << " in " << results_path << "\n";
  return Conclude(dir, opts.kernel, results_path, got->sampled);
}

// Each agent's plan; the agents must be of one CPU fingerprint (unless --allow-mixed) and make
// the same events of --events.
Result<std::vector<AgentPlan>> PlanAgents(const RunOptions& opts, const KernelDir& dir,
                                          const std::vector<SweepAgent>& agents) {
  std::vector<AgentPlan> plans;
  std::vector<std::pair<std::string, std::string>> fingerprints;
  for (const SweepAgent& a : agents) {
    KT_ASSIGN_OR_RETURN(AgentPlan plan, PrepareAgent(opts, dir, a.session));
    fingerprints.emplace_back(a.session.name, CpuFingerprint(plan.cpu));
    plans.push_back(std::move(plan));
  }
  KT_RETURN_IF_ERROR(CheckFingerprints(fingerprints, opts.allow_mixed));
  for (const AgentPlan& plan : plans) {
    if (plan.selection.events != plans[0].selection.events) {
      return InvalidArgument("the agents' CPUs make different events of --events (" +
                             Join(plans[0].selection.events, ",") + " and " +
                             Join(plan.selection.events, ",") + "); name the events");
    }
  }
  return plans;
}

}  // namespace

namespace {

// --shape and --shapes: only the variants at those shapes; a shape no variant runs at is an error.
Status SelectShapes(const RunOptions& opts, KernelDir* dir) {
  if (opts.shape.empty() && opts.shapes_file.empty()) return Status::Ok();
  std::vector<ShapeSet> sets;
  if (!opts.shapes_file.empty()) {
    auto text = ReadFile(opts.shapes_file);
    if (!text.ok()) return text.status().WithContext("--shapes");
    KT_ASSIGN_OR_RETURN(sets, ParseShapesFile(*text, opts.shapes_file));
  }
  for (const std::string& s : opts.shape) {
    KT_ASSIGN_OR_RETURN(auto set, ParseShapeSet(s));
    sets.push_back({std::move(set), "--shape " + s});
  }
  std::vector<KernelVariant> kept;
  std::vector<bool> matched(sets.size(), false);
  for (KernelVariant& v : dir->variants) {
    bool keep = false;
    for (size_t i = 0; i < sets.size(); ++i) {
      if (InShape(v.shape, sets[i].values)) keep = matched[i] = true;
    }
    if (keep) kept.push_back(std::move(v));
  }
  for (size_t i = 0; i < sets.size(); ++i) {
    if (!matched[i]) {
      return NotFound(sets[i].where + ": no variant of " + opts.kernel +
                      " runs at that shape (khost tune --shapes builds for it)");
    }
  }
  if (kept.empty()) return InvalidArgument("--shapes " + opts.shapes_file + " holds no shape");
  dir->variants = std::move(kept);
  return Status::Ok();
}

}  // namespace

Status ExecuteRun(const RunOptions& opts) {
  KT_ASSIGN_OR_RETURN(KernelDir dir, LoadKernelDir(opts.root, opts.kernel));
  if (opts.resume) return ExecuteResume(opts, dir);
  KT_RETURN_IF_ERROR(SelectShapes(opts, &dir));
  if (opts.adaptive &&
      std::any_of(dir.variants.begin(), dir.variants.end(),
                  [&](const KernelVariant& v) { return v.shape != dir.variants.front().shape; })) {
    return InvalidArgument(kAdaptiveShapes);
  }
  KT_ASSIGN_OR_RETURN(Manifest manifest, BuildManifest(dir));
  const std::vector<std::string> names =
      opts.agents.empty() ? std::vector<std::string>{opts.agent} : opts.agents;
  KT_ASSIGN_OR_RETURN(std::vector<SweepAgent> agents, OpenAgents(names, opts.token_file));
  KT_ASSIGN_OR_RETURN(const std::vector<AgentPlan> plans, PlanAgents(opts, dir, agents));
  // One agent gets the bundle now, its errors khost run's; the agents of a sweep each get it on
  // their own thread.
  const bool sweep = agents.size() > 1;
  if (!sweep) KT_RETURN_IF_ERROR(PushBundle(*agents[0].session.conn, manifest, dir.root).status());

  const std::string run_id = NewRunId();
  RunOptions measured = opts;
  measured.events = plans[0].selection.events;
  if (!measured.seed) measured.seed = std::random_device{}();
  ReceiveSetup setup;
  setup.command = "khost run";
  setup.results_path = ResultsPath(dir.run_dir, run_id);
  setup.meta = NewRunMeta(run_id, opts.kernel, opts, *measured.seed, plans[0]);
  DescribeAgents(agents, plans, setup.meta);
  setup.request = MakeRunRequest(measured, dir, BundleId(manifest), run_id);
  setup.show_progress = ::isatty(2);
  setup.how_to_resume = HowToResume(opts, run_id);
  SweepSetup sweep_setup{*setup.request, sweep ? &manifest : nullptr, dir.root,
                         PlanShards(run_id, dir.variants.size(), agents.size())};
  if (sweep) {
    setup.meta.agents = names;
    setup.meta.shards = sweep_setup.shards;
    KT_RETURN_IF_ERROR(WriteSweepRequest(setup.results_path, *setup.request));
  }
  const std::string results_path = setup.results_path;
  KT_ASSIGN_OR_RETURN(std::unique_ptr<RunSink> sink, RunSink::Open(std::move(setup)));
  const Result<bool> complete = RunSweep(agents, std::move(sweep_setup), *sink);
  KT_ASSIGN_OR_RETURN(const ReceivedRun got,
                      sink->Finish(complete.status(), complete.ok() && *complete));
  std::cerr << "khost run: " << got.rows.size() << (got.rows.size() == 1 ? " row in " : " rows in ")
            << results_path << "\n";
  return Conclude(dir, opts.kernel, results_path, got.sampled);
}

int RunMain(const Args& args) {
  return CommandMain("run", RunCliOptions, ParseRunArgs, ExecuteRun, args);
}

}  // namespace ktune::host
