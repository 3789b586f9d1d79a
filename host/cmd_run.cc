// khost run <kernel>: pushes the kernel's bundle (only what the agent lacks), measures every
// variant on the agent and writes each row to <kernel>/run/results/<run_id>.csv as it arrives;
// then writes the seed's perf_stats.csv (configs.json's perf_files.stat) and prints the table.
// khost run <kernel> --resume: the same for a run that stopped early, from the rows the agent's
// journal holds; the agent measures only what is missing.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include "common/events.h"
#include "common/fs.h"
#include "host/agent_locator.h"
#include "host/cli.h"
#include "host/command.h"
#include "host/elf_symbols.h"
#include "host/event_groups.h"
#include "host/kernel_dir.h"
#include "host/report.h"
#include "host/results_dir.h"
#include "host/run_receiver.h"
#include "host/samples.h"
#include "protocol/convert.h"

namespace ktune {
namespace {

cxxopts::Options RunCliOptions() {
  cxxopts::Options o("khost run", "Measure every variant of a kernel on an agent.");
  o.add_options()("kernel", "kernel name", cxxopts::value<std::string>())(
      "events", "comma-separated groups and events (perf's syntax; default: the default group)",
      cxxopts::value<std::string>()->default_value(""))(
      "reps", "measured repetitions per variant", cxxopts::value<int64_t>()->default_value("5"))(
      "warmup", "unmeasured runs before them", cxxopts::value<int64_t>()->default_value("1"))(
      "timeout", "seconds before a run is killed", cxxopts::value<double>()->default_value("60"))(
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
      "run", "with --resume: the run id", cxxopts::value<std::string>()->default_value(""));
  AddRootOption(o);
  AddAgentOption(o);
  o.positional_help("<kernel>");
  return o;
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
  if (opts.resume) {
    for (const char* o : {"events", "reps", "warmup", "timeout", "cpu", "cpu-model", "multiplex",
                          "record", "period", "freq", "callchain"}) {
      if (r.count(o)) {
        return InvalidArgument(std::string("--resume measures the run as it was asked; --") + o +
                               " cannot change it");
      }
    }
    return opts;
  }
  if (!opts.run_id.empty()) return InvalidArgument("--run goes with --resume");
  const std::string events = r["events"].as<std::string>();
  if (events.empty()) {
    opts.events = {"default"};
  } else {
    KT_ASSIGN_OR_RETURN(opts.events, SplitEventList(events));
  }
  std::set<std::string> seen;
  for (const std::string& e : opts.events) {
    if (!seen.insert(e).second) return InvalidArgument("event " + e + " is listed twice");
  }
  opts.cpu_model = r["cpu-model"].as<std::string>();
  opts.multiplex = r.count("multiplex") > 0;
  if (const std::string record = r["record"].as<std::string>(); !record.empty()) {
    KT_ASSIGN_OR_RETURN(opts.record, SplitEventList(record));
  }
  opts.sample_period = r["period"].as<uint64_t>();
  opts.sample_freq = r["freq"].as<uint32_t>();
  opts.callchain = r.count("callchain") > 0;
  if (opts.sample_period && opts.sample_freq) {
    return InvalidArgument("--period and --freq are alternatives; give one");
  }
  if (opts.record.empty() && (opts.sample_period || opts.sample_freq || opts.callchain)) {
    return InvalidArgument("--period, --freq and --callchain go with --record");
  }
  const int64_t reps = r["reps"].as<int64_t>(), warmup = r["warmup"].as<int64_t>();
  if (reps < 1 || reps > 100000) return InvalidArgument("--reps must be between 1 and 100000");
  if (warmup < 0 || warmup > 100000)
    return InvalidArgument("--warmup must be between 0 and 100000");
  opts.repetitions = static_cast<uint32_t>(reps);
  opts.warmup = static_cast<uint32_t>(warmup);
  const double timeout = r["timeout"].as<double>();
  if (!(timeout > 0) || timeout > 7 * 24 * 3600) {
    return InvalidArgument("--timeout must be a positive number of seconds");
  }
  opts.timeout_ms = static_cast<uint64_t>(std::ceil(timeout * 1000));
  opts.cpu = r["cpu"].as<int>();
  if (opts.cpu < -1) return InvalidArgument("--cpu must be a CPU number, or -1");
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
  const RunReport report = BuildReport(run.rows, run.metrics);
  if (!dir.perf_stat_path.empty()) {
    const std::string path = dir.perf_stat_path.starts_with("/")
                                 ? dir.perf_stat_path
                                 : dir.root + "/" + dir.perf_stat_path;
    KT_RETURN_IF_ERROR(MakeDirs(std::filesystem::path(path).parent_path().string()));
    KT_ASSIGN_OR_RETURN(const std::vector<VariantSamples> symbolized,
                        LoadRunSamples(run.path, run.rows, dir.root, kernel + "_kernel"));
    KT_RETURN_IF_ERROR(WriteFileAtomic(
        path, RenderPerfStats(report, KernelPeriodColumns(symbolized, kernel + "_kernel"))));
    std::cerr << "khost run: wrote " << path << "\n";
  }
  std::cout << RenderTable(report);
  if (sampled) {
    std::cerr << "khost run: samples in " << SamplesPath(run.path)
              << " (khost report --samples, --annotate VARIANT)\n";
  }
  return Status::Ok();
}

// khost run --resume: the run's rows from the agent, which measures only what its journal lacks.
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
  if (setup.meta.complete) {
    return InvalidArgument("run " + run_id + " is complete; nothing to resume");
  }
  const std::string measured_on = setup.meta.agent;
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(opts.agent, opts.token_file));
  if (setup.meta.agent.empty()) setup.meta.agent = session.conn->address().ToString();
  setup.show_progress = ::isatty(2);
  wire::Envelope ask;
  ask.mutable_fetch_run()->set_run_id(run_id);
  ask.mutable_fetch_run()->set_resume(true);
  auto got = ReceiveRun(*session.conn, ask, std::move(setup));
  if (!got.ok()) {
    if (got.status().code() != ErrorCode::kNotFound || measured_on.empty()) return got.status();
    return got.status().WithContext("run " + run_id + " was measured on " + measured_on);
  }
  std::cerr << "khost run: resumed run " << run_id << ": " << got->rows_new << " new rows, "
            << got->rows.size() << " of " << got->rows_planned << " in " << dir.run_dir
            << "/results/" << run_id << ".csv\n";
  return Conclude(dir, opts.kernel, ResultsDir(dir.run_dir) + "/" + run_id + ".csv", got->sampled);
}

}  // namespace

Status ExecuteRun(const RunOptions& opts) {
  KT_ASSIGN_OR_RETURN(KernelDir dir, LoadKernelDir(opts.root, opts.kernel));
  if (opts.resume) return ExecuteResume(opts, dir);
  KT_ASSIGN_OR_RETURN(Manifest manifest, BuildManifest(dir));
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(opts.agent, opts.token_file));
  const uint32_t cpus = session.conn->hello().capabilities().cpu_count();
  if (opts.cpu >= 0 && static_cast<uint32_t>(opts.cpu) >= cpus) {
    return InvalidArgument("--cpu " + std::to_string(opts.cpu) + ": the agent has " +
                           std::to_string(cpus) + " CPUs (0-" + std::to_string(cpus - 1) + ")");
  }
  // As perf stat, an agent that may not count the kernel counts user space only.
  const wire::Capabilities& caps = session.conn->hello().capabilities();
  if (!caps.running_as_root() && caps.has_perf_event_paranoid() &&
      caps.perf_event_paranoid() >= 2) {
    std::cerr << "khost run: the agent is not root and perf_event_paranoid is "
              << caps.perf_event_paranoid()
              << ": events count user space only, as perf stat falls back to (:u)\n";
  }
  // Groups and event names depend on the agent's CPU: resolve them before anything is sent.
  const CpuId cpu = CpuFromWire(session.conn->hello().capabilities().cpu());
  KT_ASSIGN_OR_RETURN(const EventCatalog catalog, EventCatalog::ForCpu(cpu, opts.cpu_model));
  KT_ASSIGN_OR_RETURN(const std::vector<EventGroup> groups, GroupsFor(catalog));
  KT_ASSIGN_OR_RETURN(const Selection selection, SelectEvents(opts.events, groups, catalog));
  for (const std::string& e : opts.record) {
    auto spec = catalog.Parse(e);
    if (!spec.ok()) return spec.status().WithContext("--record");
  }
  KT_RETURN_IF_ERROR(CheckArchitecture(dir, caps, session.name));
  KT_ASSIGN_OR_RETURN(PushStats pushed, PushBundle(*session.conn, manifest, dir.root));

  const std::string run_id = NewRunId();
  RunOptions measured = opts;
  measured.events = selection.events;
  ReceiveSetup setup;
  setup.command = "khost run";
  setup.results_path = ResultsDir(dir.run_dir) + "/" + run_id + ".csv";
  setup.meta = RunMeta{run_id,
                       opts.kernel,
                       session.conn->address().ToString(),
                       DescribeCpu(cpu),
                       catalog.core(),
                       opts.events,
                       selection.events,
                       {},
                       {},
                       "",
                       false};
  for (const MetricDef& m : selection.metrics) {
    setup.meta.metrics.push_back({m.name, m.formula, m.group});
  }
  setup.request = MakeRunRequest(measured, dir, pushed.bundle_id, run_id);
  setup.show_progress = ::isatty(2);
  wire::Envelope ask;
  *ask.mutable_run_request() = *setup.request;
  KT_ASSIGN_OR_RETURN(const ReceivedRun got, ReceiveRun(*session.conn, ask, std::move(setup)));
  std::cerr << "khost run: " << got.rows.size() << " rows in " << ResultsDir(dir.run_dir) << "/"
            << run_id << ".csv\n";
  return Conclude(dir, opts.kernel, ResultsDir(dir.run_dir) + "/" + run_id + ".csv", got.sampled);
}

int RunMain(const Args& args) {
  return CommandMain("run", RunCliOptions, ParseRunArgs, ExecuteRun, args);
}

}  // namespace ktune
