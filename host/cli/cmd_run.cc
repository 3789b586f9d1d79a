// khost run <kernel>: pushes the kernel's bundle (only what the agent lacks), measures every
// variant on the agent and writes each row to <kernel>/run/results/<run_id>.csv as it arrives;
// then writes the seed's perf_stats.csv (configs.json's perf_files.stat) and prints the table.
// khost run <kernel> --resume: the same for a run that stopped early, from the rows the agent's
// journal holds; the agent measures only what is missing.
// khost run <kernel> --agents a,b: the variants spread over several agents (host/remote/sweep.h).
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include "common/events.h"
#include "common/fs.h"
#include "common/strings.h"
#include "common/system_check.h"
#include "host/cli/cli.h"
#include "host/cli/command.h"
#include "host/events/event_groups.h"
#include "host/remote/agent_locator.h"
#include "host/remote/run_receiver.h"
#include "host/remote/sweep.h"
#include "host/report/report.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "host/util/elf_symbols.h"
#include "protocol/convert.h"

namespace ktune::host {
namespace {

cxxopts::Options RunCliOptions() {
  cxxopts::Options o("khost run", "Measure every variant of a kernel on an agent.");
  o.add_options()("kernel", "kernel name", cxxopts::value<std::string>())(
      "events", "comma-separated groups and events (perf's syntax; default: the default group)",
      cxxopts::value<std::string>()->default_value(""))(
      "reps",
      "measured repetitions per variant, or auto: rounds until each variant is settled or "
      "clearly slower than the best",
      cxxopts::value<std::string>()->default_value("5"))(
      "min-reps", "with --reps auto: rounds before a variant may stop (at least 6)",
      cxxopts::value<int64_t>()->default_value("6"))(
      "max-reps", "with --reps auto: rounds at most",
      cxxopts::value<int64_t>()->default_value("30"))(
      "target-ci",
      "with --reps auto: the best variant is settled when the 95% interval of its median is "
      "within PCT percent of it",
      cxxopts::value<double>()->default_value("2"))(
      "max-time", "with --reps auto: no new round after this many seconds of measuring",
      cxxopts::value<double>())("cooldown",
                                "idle this many milliseconds before each repetition but the first",
                                cxxopts::value<double>()->default_value("0"))(
      "max-temp",
      "before each repetition, wait (up to 5 minutes) until the agent's hottest thermal zone is "
      "below this many degrees Celsius",
      cxxopts::value<double>())("warmup", "unmeasured runs before them",
                                cxxopts::value<int64_t>()->default_value("1"))(
      "order",
      "interleaved: rounds, each running every variant once in a shuffled order; sequential: "
      "every repetition of one variant, then the next",
      cxxopts::value<std::string>()->default_value("interleaved"))(
      "seed", "shuffles the interleaved rounds (default: drawn at random, kept in the run)",
      cxxopts::value<std::string>())("timeout", "seconds before a run is killed",
                                     cxxopts::value<double>()->default_value("60"))(
      "cpu", "pin runs to this CPU (-1: no pinning)", cxxopts::value<int>()->default_value("-1"))(
      "cpu-model", "event table to use instead of the agent's detected one (e.g. spacemit/x60)",
      cxxopts::value<std::string>()->default_value(""))(
      "multiplex",
      "count all events at once and scale them as perf does, instead of running "
      "each variant once per pass of events that fit the counters")(
      "record", "sample these events in one more run per variant (perf record's -e)",
      cxxopts::value<std::string>()->default_value(""))(
      "period", "a sample every N events", cxxopts::value<uint64_t>()->default_value("0"))(
      "freq", "about N samples per second (default 4001)",
      cxxopts::value<uint32_t>()->default_value("0"))("callchain",
                                                      "record user callchains with the samples")(
      "resume",
      "fetch a run stopped early (khost killed, link lost, agent restarted) and measure only "
      "what it lacks, as it was asked; the newest run unless --run names one")(
      "run", "with --resume: the run id", cxxopts::value<std::string>()->default_value(""))(
      "agents",
      "spread the variants over these agents (names or HOST:PORT, comma-separated), which must "
      "share a CPU fingerprint; an agent that drops out has its share moved to the others",
      cxxopts::value<std::string>()->default_value(""))(
      "allow-mixed", "with --agents: sweep over agents of different CPU fingerprints");
  AddRootOption(o);
  AddAgentOption(o);
  o.positional_help("<kernel>");
  return o;
}

// --events (default: the default group; each once), --cpu-model, --multiplex.
Status ParseEventOptions(const cxxopts::ParseResult& r, RunOptions* opts) {
  const std::string events = r["events"].as<std::string>();
  if (events.empty()) {
    opts->events = {"default"};
  } else {
    KT_ASSIGN_OR_RETURN(opts->events, SplitEventList(events));
  }
  std::set<std::string> seen;
  for (const std::string& e : opts->events) {
    if (!seen.insert(e).second) return InvalidArgument("event " + e + " is listed twice");
  }
  opts->cpu_model = r["cpu-model"].as<std::string>();
  opts->multiplex = r.count("multiplex") > 0;
  return Status::Ok();
}

// --record EVENTS with --period or --freq, and --callchain.
Status ParseSamplingOptions(const cxxopts::ParseResult& r, RunOptions* opts) {
  if (const std::string record = r["record"].as<std::string>(); !record.empty()) {
    KT_ASSIGN_OR_RETURN(opts->record, SplitEventList(record));
  }
  opts->sample_period = r["period"].as<uint64_t>();
  opts->sample_freq = r["freq"].as<uint32_t>();
  opts->callchain = r.count("callchain") > 0;
  if (opts->sample_period && opts->sample_freq) {
    return InvalidArgument("--period and --freq are alternatives; give one");
  }
  if (opts->record.empty() && (opts->sample_period || opts->sample_freq || opts->callchain)) {
    return InvalidArgument("--period, --freq and --callchain go with --record");
  }
  return Status::Ok();
}

// --reps auto's --min-reps, --max-reps, --target-ci and --max-time.
Status ParseAdaptiveOptions(const cxxopts::ParseResult& r, RunOptions* opts) {
  const int64_t min_reps = r["min-reps"].as<int64_t>(), max_reps = r["max-reps"].as<int64_t>();
  const double target_pct = r["target-ci"].as<double>();
  if (min_reps < 6) {
    return InvalidArgument(
        "--min-reps must be at least 6: a 95% interval of a median needs 6 values");
  }
  if (max_reps < min_reps || max_reps > 100000) {
    return InvalidArgument("--max-reps must be between --min-reps (" + std::to_string(min_reps) +
                           ") and 100000");
  }
  if (!(target_pct > 0 && target_pct < 100)) {
    return InvalidArgument("--target-ci must be a percentage above 0 and below 100");
  }
  opts->adaptive = RacingOptions{static_cast<uint32_t>(min_reps), static_cast<uint32_t>(max_reps),
                                 target_pct / 100};
  opts->repetitions = static_cast<uint32_t>(max_reps);
  if (r.count("max-time")) {
    const double seconds = r["max-time"].as<double>();
    if (!(seconds > 0) || seconds > 30 * 24 * 3600) {
      return InvalidArgument("--max-time must be a positive number of seconds");
    }
    opts->max_time_ms = static_cast<uint64_t>(std::ceil(seconds * 1000));
  }
  return Status::Ok();
}

// --reps (a number, or auto with its options) and --warmup.
Status ParseRepsOption(const cxxopts::ParseResult& r, RunOptions* opts) {
  const std::string reps = r["reps"].as<std::string>();
  if (reps == "auto") {
    KT_RETURN_IF_ERROR(ParseAdaptiveOptions(r, opts));
  } else {
    for (const char* o : {"min-reps", "max-reps", "target-ci", "max-time"}) {
      if (r.count(o)) return InvalidArgument(std::string("--") + o + " goes with --reps auto");
    }
    auto n = ParseInt64(reps);
    if (!n.ok() || *n < 1 || *n > 100000) {
      return InvalidArgument("--reps must be auto or between 1 and 100000, not '" + reps + "'");
    }
    opts->repetitions = static_cast<uint32_t>(*n);
  }
  const int64_t warmup = r["warmup"].as<int64_t>();
  if (warmup < 0 || warmup > 100000) {
    return InvalidArgument("--warmup must be between 0 and 100000");
  }
  opts->warmup = static_cast<uint32_t>(warmup);
  return Status::Ok();
}

// --reps and --warmup, --order and --seed, --cooldown, --timeout (seconds, kept in ms) and --cpu.
Status ParseRepetitionOptions(const cxxopts::ParseResult& r, RunOptions* opts) {
  KT_RETURN_IF_ERROR(ParseRepsOption(r, opts));
  const std::string order = r["order"].as<std::string>();
  if (order == "interleaved") {
    opts->order = wire::RUN_ORDER_INTERLEAVED;
  } else if (order == "sequential") {
    opts->order = wire::RUN_ORDER_SEQUENTIAL;
  } else {
    return InvalidArgument("--order must be interleaved or sequential, not '" + order + "'");
  }
  if (opts->adaptive && opts->order == wire::RUN_ORDER_SEQUENTIAL) {
    return InvalidArgument(
        "--reps auto measures in interleaved rounds; it cannot go with --order "
        "sequential");
  }
  if (r.count("seed")) {
    const std::string text = r["seed"].as<std::string>();
    auto seed = ParseUint64(text);
    if (!seed.ok()) {
      return InvalidArgument("--seed must be a whole number from 0 to 18446744073709551615, not '" +
                             text + "'");
    }
    opts->seed = *seed;
  }
  const double cooldown = r["cooldown"].as<double>();
  if (!(cooldown >= 0) || cooldown > 3600 * 1000) {
    return InvalidArgument("--cooldown must be a number of milliseconds, 0 or more");
  }
  opts->cooldown_ms = static_cast<uint64_t>(std::ceil(cooldown));
  if (r.count("max-temp")) {
    const double celsius = r["max-temp"].as<double>();
    if (!(celsius > 0 && celsius < 200)) {
      return InvalidArgument("--max-temp must be a temperature in degrees Celsius, above 0");
    }
    opts->max_temp_mc = static_cast<int64_t>(std::lround(celsius * 1000));
  }
  const double timeout = r["timeout"].as<double>();
  if (!(timeout > 0) || timeout > 7 * 24 * 3600) {
    return InvalidArgument("--timeout must be a positive number of seconds");
  }
  opts->timeout_ms = static_cast<uint64_t>(std::ceil(timeout * 1000));
  opts->cpu = r["cpu"].as<int>();
  if (opts->cpu < -1) return InvalidArgument("--cpu must be a CPU number, or -1");
  return Status::Ok();
}

}  // namespace

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
    for (const char* o :
         {"events",    "reps",   "min-reps", "max-reps", "target-ci", "max-time", "warmup",
          "order",     "seed",   "cooldown", "max-temp", "timeout",   "cpu",      "cpu-model",
          "multiplex", "record", "period",   "freq",     "callchain", "agents",   "allow-mixed"}) {
      if (r.count(o)) {
        return InvalidArgument(std::string("--resume measures the run as it was asked; --") + o +
                               " cannot change it");
      }
    }
    return opts;
  }
  if (!opts.run_id.empty()) return InvalidArgument("--run goes with --resume");
  KT_RETURN_IF_ERROR(ParseEventOptions(r, &opts));
  KT_RETURN_IF_ERROR(ParseSamplingOptions(r, &opts));
  KT_RETURN_IF_ERROR(ParseRepetitionOptions(r, &opts));
  if (opts.adaptive && !opts.agents.empty()) {
    return InvalidArgument(
        "--reps auto races the variants of one agent; it cannot go with --agents");
  }
  return opts;
}

wire::RunRequest MakeRunRequest(const RunOptions& options, const KernelDir& dir,
                                const std::string& bundle_id, const std::string& run_id) {
  wire::RunRequest req;
  req.set_run_id(run_id);
  req.set_bundle_id(bundle_id);
  for (const KernelVariant& v : dir.variants) {
    auto* w = req.add_variants();
    w->set_name(v.name);
    w->set_elf_path(v.elf_path);
    for (const auto& a : v.args) w->add_args(a);
    for (const auto& [k, val] : v.params) {
      auto* p = w->add_params();
      p->set_name(k);
      p->set_value(val);
    }
  }
  for (const auto& e : options.events) req.add_events(e);
  req.set_repetitions(options.repetitions);
  req.set_warmup(options.warmup);
  req.set_order(options.order);
  req.set_seed(options.seed.value_or(0));
  if (options.adaptive) {
    req.mutable_adaptive()->set_min_reps(options.adaptive->min_reps);
    req.mutable_adaptive()->set_target_ci(options.adaptive->target_ci);
    req.mutable_adaptive()->set_max_time_ms(options.max_time_ms);
  }
  req.set_cooldown_ms(options.cooldown_ms);
  req.set_max_temp_mc(options.max_temp_mc);
  req.set_timeout_ms(options.timeout_ms);
  req.set_cpu(options.cpu);
  req.set_cpu_model(options.cpu_model);
  req.set_multiplex(options.multiplex);
  for (const auto& e : options.record) req.add_record(e);
  req.set_sample_period(options.sample_period);
  req.set_sample_freq(options.sample_freq);
  req.set_callchain(options.callchain);
  return req;
}

namespace {

// Every variant's ELF must be of the agent's architecture, unless the agent runs them under a
// wrapper (agentd --exec-wrapper qemu-riscv64): else each would fail to exec, one by one.
Status CheckArchitecture(const KernelDir& dir, const wire::Capabilities& caps,
                         const std::string& agent) {
  const std::string& arch = caps.cpu().arch();
  if (caps.exec_wrapper_size() > 0 || arch.empty()) return Status::Ok();
  for (const KernelVariant& v : dir.variants) {
    KT_ASSIGN_OR_RETURN(const std::string head, ReadFilePrefix(dir.root + "/" + v.elf_path, 64));
    const std::string elf = ElfArch(head);
    if (!elf.empty() && elf != arch) {
      return InvalidArgument("variant " + v.name + " is built for " + elf + " but agent " + agent +
                             " is " + arch + " (khost tune with a toolchain for " + arch +
                             ", or a " + elf + " agent)");
    }
  }
  return Status::Ok();
}

// How khost run ends, for a new run and a resumed one: the seed's perf_stats.csv (configs.json's
// perf_files.stat) and the table, from the run's file.
Status Conclude(const KernelDir& dir, const std::string& kernel, const std::string& results_path,
                bool sampled) {
  KT_ASSIGN_OR_RETURN(const LoadedRun run, LoadRun(dir.run_dir, results_path));
  RunReport report = BuildReport(run.rows, run.metrics);
  AddRace(run, &report);
  if (!dir.perf_stat_path.empty()) {
    const std::string path = UnderRoot(dir.root, dir.perf_stat_path);
    KT_RETURN_IF_ERROR(MakeDirs(std::filesystem::path(path).parent_path().string()));
    KT_ASSIGN_OR_RETURN(const std::vector<VariantSamples> symbolized,
                        LoadRunSamples(run.path, run.rows, dir.root, KernelSymbol(kernel)));
    KT_RETURN_IF_ERROR(WriteFileAtomic(
        path, RenderPerfStats(report, KernelPeriodColumns(symbolized, KernelSymbol(kernel)))));
    std::cerr << "khost run: wrote " << path << "\n";
  }
  std::cout << RenderTable(report);
  if (sampled) {
    std::cerr << "khost run: samples in " << SamplesPath(run.path)
              << " (khost report --samples, --annotate VARIANT)\n";
  }
  return Status::Ok();
}

// What one agent makes of the run: its checks passed, and the events as its CPU names them.
struct AgentPlan {
  CpuId cpu;
  std::string core;  // the event table
  Selection selection;
};

Result<AgentPlan> PrepareAgent(const RunOptions& opts, const KernelDir& dir,
                               const AgentSession& session) {
  const wire::Capabilities& caps = session.conn->hello().capabilities();
  const uint32_t cpus = caps.cpu_count();
  if (opts.cpu >= 0 && static_cast<uint32_t>(opts.cpu) >= cpus) {
    return InvalidArgument("--cpu " + std::to_string(opts.cpu) + ": agent " + session.name +
                           " has " + std::to_string(cpus) + " CPUs (0-" + std::to_string(cpus - 1) +
                           ")");
  }
  // As perf stat, an agent that may not count the kernel counts user space only.
  if (!caps.running_as_root() && caps.has_perf_event_paranoid() &&
      caps.perf_event_paranoid() >= 2) {
    std::cerr << "khost run: agent " << session.name << " is not root and perf_event_paranoid is "
              << caps.perf_event_paranoid()
              << ": events count user space only, as perf stat falls back to (:u)\n";
  }
  // Groups and event names depend on the agent's CPU: resolve them before anything is sent.
  AgentPlan plan;
  plan.cpu = CpuFromWire(caps.cpu());
  KT_ASSIGN_OR_RETURN(const EventCatalog catalog, EventCatalog::ForCpu(plan.cpu, opts.cpu_model));
  plan.core = catalog.core();
  KT_ASSIGN_OR_RETURN(const std::vector<EventGroup> groups, GroupsFor(catalog));
  KT_ASSIGN_OR_RETURN(plan.selection, SelectEvents(opts.events, groups, catalog));
  for (const std::string& e : opts.record) {
    auto spec = catalog.Parse(e);
    if (!spec.ok()) return spec.status().WithContext("--record");
  }
  if (opts.max_temp_mc > 0 && !HottestZoneMc(SystemCheckFromWire(caps.system()))) {
    return InvalidArgument("--max-temp: agent " + session.name +
                           " reports no thermal zone with a temperature (/sys/class/thermal)");
  }
  KT_RETURN_IF_ERROR(CheckArchitecture(dir, caps, session.name));
  return plan;
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

Status ExecuteRun(const RunOptions& opts) {
  KT_ASSIGN_OR_RETURN(KernelDir dir, LoadKernelDir(opts.root, opts.kernel));
  if (opts.resume) return ExecuteResume(opts, dir);
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
  setup.meta.run_id = run_id;
  setup.meta.kernel = opts.kernel;
  DescribeAgents(agents, plans, setup.meta);
  setup.meta.core = plans[0].core;
  setup.meta.requested = opts.events;
  setup.meta.order = opts.order == wire::RUN_ORDER_SEQUENTIAL ? "sequential" : "interleaved";
  setup.meta.seed = *measured.seed;
  setup.meta.adaptive = opts.adaptive;
  setup.meta.cooldown_ms = opts.cooldown_ms;
  setup.meta.max_temp_mc = opts.max_temp_mc;
  setup.meta.events = plans[0].selection.events;
  for (const MetricDef& m : plans[0].selection.metrics) {
    setup.meta.metrics.push_back({m.name, m.formula, m.group});
  }
  setup.request = MakeRunRequest(measured, dir, BundleId(manifest), run_id);
  setup.show_progress = ::isatty(2);
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
  std::cerr << "khost run: " << got.rows.size() << " rows in " << results_path << "\n";
  return Conclude(dir, opts.kernel, results_path, got.sampled);
}

int RunMain(const Args& args) {
  return CommandMain("run", RunCliOptions, ParseRunArgs, ExecuteRun, args);
}

}  // namespace ktune::host
