#include "host/search/search.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/median.h"
#include "common/strings.h"
#include "host/remote/agent_client.h"
#include "host/remote/agent_locator.h"
#include "host/remote/run_receiver.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/search/search_files.h"
#include "host/strategy/space.h"
#include "host/tune/variant_build.h"
#include "host/util/subprocess.h"
#include "protocol/convert.h"

namespace ktune::host {

Evaluation VariantEvaluation(const std::vector<RepetitionRow>& rows, uint32_t variant_index) {
  Evaluation e;
  std::vector<double> kernel_ns, wall_ns;
  size_t counted = 0;
  for (const RepetitionRow& r : rows) {
    if (r.variant_index != variant_index || r.sampling) continue;
    if (e.run.empty()) e.run = r.run_id;
    if (!r.valid) {
      e.status = r.outcome.kind == OutcomeKind::kExited && r.outcome.code == 0
                     ? "NOT OK"
                     : r.outcome.ToString();
      return e;
    }
    ++counted;
    if (const MeasuredValue* k = r.Find(kKernelTime); k && k->status == ValueStatus::kOk) {
      kernel_ns.push_back(k->value * 1e9);
    }
    if (const MeasuredValue* w = r.Find(kWallTime); w && w->status == ValueStatus::kOk) {
      wall_ns.push_back(w->value);
    }
  }
  if (counted == 0) {
    e.status = "not measured";
    return e;
  }
  std::optional<double> t = kernel_ns.size() == counted ? Median(kernel_ns) : Median(wall_ns);
  if (!t || !(*t > 0) || !std::isfinite(*t)) {
    e.status = "no time";
    return e;
  }
  e.time_ns = *t;
  return e;
}

Evaluation AcrossShapesEvaluation(const std::vector<Evaluation>& at_shapes,
                                  const std::vector<std::string>& shape_labels) {
  if (at_shapes.size() == 1) return at_shapes.front();
  Evaluation e;
  if (!at_shapes.empty()) {
    e.config = at_shapes.front().config;
    e.run = at_shapes.front().run;
  }
  std::vector<double> times;
  for (size_t s = 0; s < at_shapes.size(); ++s) {
    if (!at_shapes[s].time_ns) {
      e.status = at_shapes[s].status + (s < shape_labels.size() ? " at " + shape_labels[s] : "");
      return e;
    }
    times.push_back(*at_shapes[s].time_ns);
  }
  e.time_ns = GeometricMean(times);
  if (!e.time_ns) e.status = at_shapes.empty() ? "not measured" : "no time";
  return e;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string Milliseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", ns / 1e6);
  return text;
}

// The kernel's feasible grid as a search space: each parameter's candidate values ascending (so
// that adjacent values are neighbours).
Result<SearchSpace> SpaceOf(const TunePlan& plan) {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> values;
  for (const SpecParam& p : plan.spec.params) {
    names.push_back(p.name);
    std::vector<int64_t> v = p.values;
    std::sort(v.begin(), v.end());
    values.push_back(std::move(v));
  }
  // With several shapes, what every shape takes (the best overall must run at each).
  std::vector<Config> configs;
  for (const Config& c : plan.configs) {
    if (std::none_of(plan.shapes.begin(), plan.shapes.end(),
                     [&](const ShapeRun& s) { return s.excluded.count(c) > 0; })) {
      configs.push_back(c);
    }
  }
  if (configs.empty()) {
    return InvalidArgument(plan.spec.path + ": no configuration meets the constraints at every " +
                           "one of the " + std::to_string(plan.shapes.size()) + " shapes");
  }
  return SearchSpace::Make(std::move(names), std::move(values), configs);
}

// What measuring one batch needs, across batches.
struct Searcher {
  const TuneOptions& tune;
  const SearchOptions& search;
  TunePlan plan;
  std::string run_dir, bin_dir, shared_key;
  size_t parallel = 1;
  AgentSession session;
  std::optional<AgentPlan> agent_plan;
  size_t batches = 0;
  std::string path;  // the journal's
  SearchMeta meta;   // its metadata, written at each change

  // Builds, pushes and measures `configs`; their evaluations in the same order. The batch is
  // meta.pending from before its run is asked; when it already was (a search cut short during
  // that batch, resumed), its run is continued on the agent rather than measured again.
  Result<std::vector<Evaluation>> Evaluate(const std::vector<Config>& configs);

 private:
  // The rows of the pending batch's run `run_id` that `dir` and `manifest` were made for: those
  // in its results file, and what it lacks, measured by the agent. NotFound when it never was
  // asked of this agent.
  Result<ReceivedRun> Continue(const std::string& run_id);
};

Result<ReceivedRun> Searcher::Continue(const std::string& run_id) {
  ReceiveSetup setup;
  setup.command = "khost tune";
  setup.results_path = ResultsPath(run_dir, run_id);
  // The metadata is written before the run is asked: without it, it was not.
  auto run_meta = ReadRunMeta(RunMetaPath(setup.results_path));
  if (!run_meta.ok()) return NotFound("run " + run_id + " was not asked");
  setup.meta = std::move(run_meta).value();
  setup.say_system_warnings = false;
  wire::Envelope ask;
  ask.mutable_fetch_run()->set_run_id(run_id);
  ask.mutable_fetch_run()->set_resume(true);
  return ReceiveRun(*session.conn, ask, std::move(setup));
}

Result<std::vector<Evaluation>> Searcher::Evaluate(const std::vector<Config>& configs) {
  std::vector<Evaluation> out(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) out[i].config = configs[i];
  const std::vector<VariantJob> jobs =
      PlanVariants(plan.spec, plan.toolchain, configs, {}, run_dir);
  const std::vector<VariantBuild> builds =
      BuildVariants(plan.spec, plan.toolchain, jobs, shared_key, bin_dir, parallel,
                    [](size_t, const VariantBuild&) {});
  std::vector<size_t> built;  // indices into configs, in configs.json's order
  for (size_t i = 0; i < builds.size(); ++i) {
    if (builds[i].skipped) continue;
    if (builds[i].state == BuildState::kFailed) {
      out[i].status = "build failed";
      std::cerr << "khost tune: " << jobs[i].elf_name << " failed to build: " << builds[i].message
                << "\n";
      if (builds[i].kernel_undefined) {  // the spec's fault: none would build
        return InvalidArgument(plan.spec.path + ": no source of the spec defines " +
                               KernelSymbol(plan.spec.name) +
                               ": is a 'kernel_source:' line missing? (docs/KSPEC.md)");
      }
    } else {
      built.push_back(i);
    }
  }
  if (built.empty()) return out;
  KT_RETURN_IF_ERROR(WriteFileAtomic(run_dir + "/configs.json",
                                     ConfigsJson(plan.spec, jobs, builds, plan.shapes)));
  KT_ASSIGN_OR_RETURN(const KernelDir dir, LoadKernelDir(tune.root, plan.spec.name));
  // Each built configuration at every shape, one after another (the space holds only those
  // every shape takes).
  const size_t shapes = plan.shapes.size();
  if (dir.variants.size() != built.size() * shapes) {
    return InternalError("configs.json lists " + std::to_string(dir.variants.size()) +
                         " variants, not the " + std::to_string(built.size()) + " built at " +
                         std::to_string(shapes) + " shapes");
  }
  if (!agent_plan) {
    KT_ASSIGN_OR_RETURN(agent_plan, PrepareAgent(search.measure, dir, session));
  }
  KT_ASSIGN_OR_RETURN(const Manifest manifest, BuildManifest(dir));
  KT_RETURN_IF_ERROR(PushBundle(*session.conn, manifest, dir.root).status());

  const size_t batch = batches++;
  std::optional<ReceivedRun> continued;
  std::string run_id;
  if (meta.pending && meta.pending->configs == configs) {
    run_id = meta.pending->run_id;
    auto got = Continue(run_id);
    if (got.ok()) {
      std::cout << "continuing run " << run_id << " of the batch that was being measured\n";
      continued = std::move(got).value();
    } else if (got.status().code() != ErrorCode::kNotFound) {
      return got.status();
    }
  }
  if (!continued) {
    MeasureOptions measure = search.measure;
    measure.events = agent_plan->selection.events;
    // Each batch's rounds are shuffled by a seed of its own, drawn from the search's.
    if (!measure.seed) measure.seed = tune.seed * 1000003 + batch;
    run_id = NewRunId();
    meta.pending = SearchMeta::Batch{run_id, configs};
    KT_RETURN_IF_ERROR(WriteSearchMeta(path, meta));
    ReceiveSetup setup;
    setup.command = "khost tune";
    setup.results_path = ResultsPath(run_dir, run_id);
    setup.meta = NewRunMeta(run_id, plan.spec.name, search.measure, *measure.seed, *agent_plan);
    setup.meta.agent = session.conn->where();
    setup.meta.cpu = DescribeCpu(agent_plan->cpu);
    setup.say_system_warnings = batch == 0;
    setup.how_to_resume =
        CommandLine({"khost", "tune", plan.spec.path, "--root", tune.root, "--resume", "--search",
                     std::filesystem::path(path).stem().string()}) +
        " continues the search, with this batch's run as the agent measured it";
    setup.request = MakeRunRequest(measure, dir, BundleId(manifest), run_id);
    wire::Envelope ask;
    *ask.mutable_run_request() = *setup.request;
    KT_ASSIGN_OR_RETURN(continued, ReceiveRun(*session.conn, ask, std::move(setup)));
  }
  const ReceivedRun& got = *continued;
  std::vector<std::string> labels;
  for (const ShapeRun& s : plan.shapes) labels.push_back(ShapeLabel(ShapeParams(s.shape)));
  for (size_t b = 0; b < built.size(); ++b) {
    std::vector<Evaluation> at;
    for (size_t s = 0; s < shapes; ++s) {
      at.push_back(VariantEvaluation(got.rows, static_cast<uint32_t>(b * shapes + s)));
    }
    Evaluation e = AcrossShapesEvaluation(at, labels);
    e.config = configs[built[b]];
    if (e.run.empty()) e.run = run_id;
    out[built[b]] = std::move(e);
  }
  return out;
}

// The journal's first comment: what is tuned and where. A resumed search must find it again (a
// --shapes file edited since, another toolchain profile, would change what its journal means).
std::string AboutTune(const TunePlan& plan) {
  std::vector<std::string> shapes;
  for (const ShapeRun& s : plan.shapes) shapes.push_back(ShapeLabel(ShapeParams(s.shape)));
  return "kernel " + plan.spec.name + ", toolchain " + plan.toolchain.name + ", shape " +
         Join(shapes, "; ");
}

std::string MeasureText(const MeasureOptions& m) {
  std::string reps = m.adaptive ? "auto (" + std::to_string(m.adaptive->min_reps) + " to " +
                                      std::to_string(m.repetitions) + ")"
                                : std::to_string(m.repetitions);
  return "repetitions " + reps + ", warm-up " + std::to_string(m.warmup) + ", " +
         (m.order == wire::RUN_ORDER_SEQUENTIAL ? "sequential" : "interleaved") +
         (m.cpu >= 0 ? ", CPU " + std::to_string(m.cpu) : "") +
         "; a configuration's time: the median of its kernel-time, else of its wall-time";
}

}  // namespace

Status RunSearch(const TuneOptions& tune, const SearchOptions& search) {
  const Clock::time_point start = Clock::now();
  KT_ASSIGN_OR_RETURN(TunePlan plan, PrepareTune(tune));
  if (search.measure.adaptive && plan.shapes.size() > 1) return InvalidArgument(kAdaptiveShapes);
  KT_ASSIGN_OR_RETURN(const SearchSpace space, SpaceOf(plan));
  StrategyKind kind = search.strategy;
  size_t budget = search.budget.value_or(space.size());
  if (budget > space.size()) {
    std::cout << "khost tune: the budget of " << budget << " evaluations is more than the "
              << space.size() << " feasible configurations: measuring every one (grid)\n";
    budget = space.size();
    kind = StrategyKind::kGrid;
  }
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(tune.root, plan.spec.name));

  // The journal: an earlier search's to resume, else a new one.
  SearchMeta meta{search.argv, 0, std::nullopt};
  std::string path;
  std::optional<SearchJournal> journal;
  if (search.resume) {
    KT_ASSIGN_OR_RETURN(path, FindSearchFile(run_dir, search.search_id));
    KT_ASSIGN_OR_RETURN(meta, ReadSearchMeta(path));
    KT_ASSIGN_OR_RETURN(SearchJournal j, SearchJournal::Open(path));
    if (j.evaluations().names != space.names()) {
      return InvalidArgument(path + " searched the parameters " + Join(j.evaluations().names, ",") +
                             ", the spec now has " + Join(space.names(), ","));
    }
    const std::vector<std::string>& said = j.evaluations().comments;
    if (said.empty() || said.front() != AboutTune(plan)) {
      return InvalidArgument(path + " searched " + (said.empty() ? "?" : said.front()) +
                             "; it would go on with " + AboutTune(plan));
    }
    if (const std::string w = EvaluationsWarning(j.evaluations()); !w.empty()) {
      std::cerr << "khost tune: " << path << ": " << w << "\n";
    }
    journal.emplace(std::move(j));
  }

  Searcher s{tune, search, std::move(plan), run_dir, "", "", 1, {}, std::nullopt, 0, "", {}};
  s.bin_dir = std::filesystem::absolute(run_dir + "/bin").lexically_normal().string();
  s.parallel = BuildParallelism(s.plan.toolchain, tune.jobs).count;
  KT_ASSIGN_OR_RETURN(s.session, OpenAgentSession(search.agent, search.token_file));
  KT_ASSIGN_OR_RETURN(s.shared_key, SharedKey(s.plan.spec, s.plan.toolchain));
  KT_RETURN_IF_ERROR(WriteShapesTestData(s.plan, run_dir));
  KT_RETURN_IF_ERROR(MakeDirs(s.bin_dir));

  if (!journal) {
    const std::string search_id = NewRunId();
    path = SearchPath(run_dir, search_id);
    const std::vector<std::string> comments = {
        AboutTune(s.plan),
        std::string("strategy ") + StrategyName(kind) + ", seed " + std::to_string(tune.seed) +
            ", budget " + std::to_string(budget) + " of " + std::to_string(space.size()) +
            " feasible configurations" +
            (search.budget_seconds ? " or " + FormatDouble(*search.budget_seconds) + " s" : "") +
            ", batches of " + std::to_string(search.batch),
        "agent " + s.session.conn->where() + ", " +
            DescribeCpu(CpuFromWire(s.session.conn->hello().capabilities().cpu())),
        "measured: " + MeasureText(search.measure) +
            (s.plan.shapes.size() > 1 ? ", at each shape; over the shapes, the geometric mean"
                                      : ""),
        "khost tune " + Join(search.argv, " ")};
    KT_ASSIGN_OR_RETURN(SearchJournal j, SearchJournal::Create(path, comments, space.names()));
    journal.emplace(std::move(j));
    KT_RETURN_IF_ERROR(WriteSearchMeta(path, meta));
  }
  s.path = path;
  s.meta = std::move(meta);
  std::map<std::vector<int64_t>, Evaluation> known;
  for (const Evaluation& e : journal->evaluations().rows) known[e.config] = e;
  std::cout << "search " << s.plan.spec.name << " with " << StrategyName(kind) << " (seed "
            << tune.seed << "): budget " << budget << " of " << space.size()
            << " feasible configurations, batches of " << search.batch << ", journal " << path
            << (known.empty() ? "" : " (" + std::to_string(known.size()) + " evaluations kept)")
            << "\n";

  const std::unique_ptr<Strategy> strategy =
      MakeStrategy(kind, space, {.seed = tune.seed, .budget = budget});
  size_t evaluated = 0, infeasible = 0, measured_now = 0;
  std::optional<Evaluation> best;
  size_t best_at = 0;
  std::string stopped = "the strategy has nothing more to try";
  const double elapsed_before = s.meta.elapsed_s;
  auto elapsed = [&] {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - start).count();
  };
  while (true) {
    if (evaluated >= budget) {
      stopped = "the budget of " + std::to_string(budget) + " evaluations is spent";
      break;
    }
    if (search.budget_seconds && elapsed() >= *search.budget_seconds) {
      stopped = "the time budget of " + FormatDouble(*search.budget_seconds) + " s is spent";
      break;
    }
    const std::vector<size_t> asked = strategy->Ask(std::min(search.batch, budget - evaluated));
    if (asked.empty()) break;
    std::vector<Config> missing;
    for (size_t p : asked) {
      if (!known.count(space.config(p))) missing.push_back(space.config(p));
    }
    if (!missing.empty()) {
      // The batch a search cut short was measuring holds what is missing here (all of it, or the
      // part not journaled yet): it is evaluated again, so that its run is continued.
      const std::optional<SearchMeta::Batch>& cut = s.meta.pending;
      const bool continues =
          cut && std::all_of(missing.begin(), missing.end(), [&](const Config& c) {
            return std::find(cut->configs.begin(), cut->configs.end(), c) != cut->configs.end();
          });
      const std::vector<Config> batch = continues ? cut->configs : missing;
      KT_ASSIGN_OR_RETURN(const std::vector<Evaluation> got, s.Evaluate(batch));
      for (const Evaluation& e : got) {
        if (known.count(e.config)) continue;
        KT_RETURN_IF_ERROR(journal->Append(e));
        known[e.config] = e;
      }
      measured_now += missing.size();
      s.meta.elapsed_s = elapsed();
      s.meta.pending.reset();
      KT_RETURN_IF_ERROR(WriteSearchMeta(path, s.meta));
    }
    for (size_t p : asked) {
      const Evaluation& e = known.at(space.config(p));
      strategy->Tell(p, e.time_ns);
      ++evaluated;
      if (!e.time_ns) ++infeasible;
      if (e.time_ns && (!best || *e.time_ns < *best->time_ns)) {
        best = e;
        best_at = evaluated;
      }
    }
    if (!missing.empty()) {
      std::cout << "evaluated " << evaluated << " of " << budget << " (" << infeasible
                << " infeasible)"
                << (best ? ", best " + Milliseconds(*best->time_ns) + " (" +
                               ConfigText(space.names(), best->config) + ")"
                         : std::string())
                << std::endl;
    }
  }

  // configs.json lists every configuration measured ok, so that khost run and report see them.
  std::vector<Config> ok;
  for (const auto& [config, e] : known) {
    if (e.time_ns) ok.push_back(config);
  }
  if (!ok.empty()) {
    const std::vector<VariantJob> jobs =
        PlanVariants(s.plan.spec, s.plan.toolchain, ok, {}, run_dir);
    const std::vector<VariantBuild> builds(jobs.size(), VariantBuild{BuildState::kCached, "", 0});
    KT_RETURN_IF_ERROR(WriteFileAtomic(run_dir + "/configs.json",
                                       ConfigsJson(s.plan.spec, jobs, builds, s.plan.shapes)));
  }
  std::cout << "search done: " << evaluated << " evaluations (" << measured_now << " measured now, "
            << infeasible << " infeasible) of " << space.size() << " feasible configurations in "
            << FormatDouble(std::round(elapsed() * 10) / 10) << " s; " << stopped << "\n";
  if (evaluated == 0) return Unavailable("nothing was evaluated: " + stopped);
  if (!best) return Unavailable("no configuration could be measured (see " + path + ")");
  std::cout << "best: " << ConfigText(space.names(), best->config) << ", "
            << Milliseconds(*best->time_ns) << ", found at evaluation " << best_at << " (run "
            << best->run << ")\n";
  return Status::Ok();
}

}  // namespace ktune::host
