#include "host/search/search.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/median.h"
#include "common/strings.h"
#include "host/measure/run_service.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/search/search_files.h"
#include "host/search/warm_start.h"
#include "host/strategy/space.h"
#include "host/tune/variant_build.h"
#include "host/util/format.h"
#include "host/util/subprocess.h"
#include "protocol/convert.h"

namespace ktune::host {

Evaluation VariantEvaluation(const std::vector<RepetitionRow>& rows, uint32_t variant_index) {
  const VariantResult summary = VariantResultOf(rows, variant_index);
  Evaluation e;
  e.run = summary.run_id;
  e.status = summary.status;
  if (summary.median_ns) e.time_ns = *summary.median_ns;
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

// What measuring one batch needs, across batches: the plan, where its files go, the agent (one
// session for the whole search) and the journal's metadata.
struct Searcher {
  const TuneOptions& tune;
  const SearchOptions& search;
  TunePlan plan;
  std::string run_dir;
  std::string bin_dir = "", shared_key = "";
  size_t parallel = 1;
  std::vector<SweepAgent> agents = {};  // the one agent
  std::vector<AgentPlan> plans = {};    // its plan, made at the first batch
  std::string configs_json = "";        // what Build wrote last
  size_t batches = 0;
  std::string path = "";            // the journal's
  SearchMeta meta = {};             // its metadata, written at each change
  RunRecorder* recorder = nullptr;  // the tuning database's, for every batch's run
  size_t reused = 0;                // variants the batches' runs reused from it
  size_t measured = 0;              // and those they measured

  // Builds, pushes and measures `configs`; their evaluations in the same order. The batch is
  // meta.pending from before its run is asked; when it already was (a search cut short during
  // that batch, resumed), its run is continued on the agent rather than measured again.
  Result<std::vector<Evaluation>> Evaluate(const std::vector<Config>& configs);

 private:
  // Builds `configs` (configs.json lists those built, its text kept in configs_json); indices of
  // the built ones, and the failed ones' evaluations in `out`.
  Result<std::vector<size_t>> Build(const std::vector<Config>& configs,
                                    std::vector<Evaluation>& out);
  // The batch's run: the pending batch's continued (its rows, and what it lacks measured), or a
  // new one on the agent.
  Result<ReceivedRun> Measure(const std::vector<Config>& configs, const KernelDir& dir,
                              const Manifest& manifest, size_t batch);
};

Result<std::vector<size_t>> Searcher::Build(const std::vector<Config>& configs,
                                            std::vector<Evaluation>& out) {
  const std::vector<VariantJob> jobs =
      PlanVariants(plan.spec, plan.toolchain, configs, {}, run_dir);
  const std::vector<VariantBuild> builds =
      BuildVariants(plan.spec, plan.toolchain, jobs, shared_key, bin_dir, parallel,
                    [](size_t, const VariantBuild&) {});
  std::vector<size_t> built;  // indices into configs, in configs.json's order
  for (size_t i = 0; i < builds.size(); ++i) {
    if (builds[i].skipped) continue;
    if (builds[i].state != BuildState::kFailed) {
      built.push_back(i);
      continue;
    }
    out[i].status = "build failed";
    std::cerr << "khost tune: " << jobs[i].elf_name << " failed to build: " << builds[i].message
              << "\n";
    if (builds[i].kernel_undefined) {  // the spec's fault: none would build
      return KernelUndefinedError(plan.spec,
                                  std::count_if(builds.begin(), builds.end(),
                                                [](const VariantBuild& b) { return b.skipped; }));
    }
  }
  if (!built.empty()) {
    configs_json = ConfigsJson(plan.spec, jobs, builds, plan.shapes,
                               BuildRecord(plan.spec, plan.toolchain, shared_key));
    KT_RETURN_IF_ERROR(WriteFileAtomic(run_dir + "/configs.json", configs_json));
  }
  return built;
}

Result<ReceivedRun> Searcher::Measure(const std::vector<Config>& configs, const KernelDir& dir,
                                      const Manifest& manifest, size_t batch) {
  if (meta.pending && meta.pending->configs == configs) {
    auto got = FetchRun({.command = "khost tune",
                         .kernel = plan.spec.name,
                         .run_dir = run_dir,
                         .run_id = meta.pending->run_id,
                         .resume = true,
                         .require_meta = true,
                         .open = &agents[0],
                         .say_system_warnings = false,
                         .recorder = recorder});
    if (got.ok()) {
      std::cout << "continuing run " << meta.pending->run_id
                << " of the batch that was being measured\n";
      return got;
    }
    if (got.status().code() != ErrorCode::kNotFound) return got.status();
  }
  MeasureOptions measure = search.measure;
  // Each batch's rounds are shuffled by a seed of its own, drawn from the search's.
  if (!measure.seed) measure.seed = tune.seed * 1000003 + batch;
  const std::string run_id = NewRunId();
  meta.pending = SearchMeta::Batch{run_id, configs};
  KT_RETURN_IF_ERROR(WriteSearchMeta(path, meta));
  const std::string resume =
      CommandLine({"khost", "tune", plan.spec.path, "--root", tune.root, "--resume", "--search",
                   std::filesystem::path(path).stem().string()}) +
      " continues the search, with this batch's run as the agent measured it";
  return MeasureRun(agents, plans, dir, manifest,
                    {.command = "khost tune",
                     .run_id = run_id,
                     .measure = measure,
                     .say_system_warnings = batch == 0,
                     .how_to_resume = [resume](const std::string&) { return resume; },
                     .recorder = recorder});
}

Result<std::vector<Evaluation>> Searcher::Evaluate(const std::vector<Config>& configs) {
  std::vector<Evaluation> out(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) out[i].config = configs[i];
  KT_ASSIGN_OR_RETURN(const std::vector<size_t> built, Build(configs, out));
  if (built.empty()) return out;
  KT_ASSIGN_OR_RETURN(const KernelDir dir, KernelDirOf(tune.root, plan.spec.name, configs_json));
  // Each built configuration at every shape, one after another (the space holds only those
  // every shape takes).
  const size_t shapes = plan.shapes.size();
  if (dir.variants.size() != built.size() * shapes) {
    return InternalError("configs.json lists " + std::to_string(dir.variants.size()) +
                         " variants, not the " + std::to_string(built.size()) + " built at " +
                         std::to_string(shapes) + " shapes");
  }
  if (plans.empty()) {
    KT_ASSIGN_OR_RETURN(plans, PlanAgents(search.measure, dir, agents, /*allow_mixed=*/false));
  }
  KT_ASSIGN_OR_RETURN(const Manifest manifest, BuildManifest(dir));
  KT_ASSIGN_OR_RETURN(const ReceivedRun got, Measure(configs, dir, manifest, batches++));
  const std::string run_id = std::filesystem::path(got.run.path).stem().string();
  const size_t reused_now = got.run.meta ? got.run.meta->reused.size() : 0;
  reused += reused_now;
  measured += dir.variants.size() - reused_now;
  std::vector<std::string> labels;
  for (const ShapeRun& s : plan.shapes) labels.push_back(ShapeLabel(ShapeParams(s.shape)));
  for (size_t b = 0; b < built.size(); ++b) {
    std::vector<Evaluation> at;
    for (size_t s = 0; s < shapes; ++s) {
      at.push_back(VariantEvaluation(got.run.rows, static_cast<uint32_t>(b * shapes + s)));
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

// The search's journal: an earlier search's to resume (it must have searched the same
// parameters of the same kernel, toolchain and shapes), or a new one with its comments.
struct JournalFile {
  std::string path;
  SearchMeta meta;
  SearchJournal file;
};

Result<JournalFile> ResumeJournal(const Searcher& s, const SearchSpace& space) {
  KT_ASSIGN_OR_RETURN(std::string path, FindSearchFile(s.run_dir, s.search.search_id));
  KT_ASSIGN_OR_RETURN(SearchMeta meta, ReadSearchMeta(path));
  KT_ASSIGN_OR_RETURN(SearchJournal file, SearchJournal::Open(path));
  if (file.evaluations().names != space.names()) {
    return InvalidArgument(path + " searched the parameters " +
                           Join(file.evaluations().names, ",") + ", the spec now has " +
                           Join(space.names(), ","));
  }
  const std::vector<std::string>& said = file.evaluations().comments;
  if (said.empty() || said.front() != AboutTune(s.plan)) {
    return InvalidArgument(path + " searched " + (said.empty() ? "?" : said.front()) +
                           "; it would go on with " + AboutTune(s.plan));
  }
  if (const std::string w = EvaluationsWarning(file.evaluations()); !w.empty()) {
    std::cerr << "khost tune: " << path << ": " << w << "\n";
  }
  return JournalFile{std::move(path), std::move(meta), std::move(file)};
}

// What the search is, for the budget it has.
struct Budget {
  StrategyKind kind;
  size_t evaluations;
};

Result<JournalFile> CreateJournal(const Searcher& s, const SearchSpace& space, const Budget& budget,
                                  const WarmStart& warm) {
  const std::string path = SearchPath(s.run_dir, NewRunId());
  const SearchMeta meta{s.search.argv, 0, std::nullopt, warm.configs, warm.about, warm.here};
  const AgentSession& agent = s.agents[0].session;
  std::vector<std::string> comments = {
      AboutTune(s.plan),
      std::string("strategy ") + StrategyName(budget.kind) + ", seed " +
          std::to_string(s.tune.seed) + ", budget " + std::to_string(budget.evaluations) + " of " +
          std::to_string(space.size()) + " feasible configurations" +
          (s.search.budget_seconds ? " or " + FormatDouble(*s.search.budget_seconds) + " s" : "") +
          ", batches of " + std::to_string(s.search.batch),
      "agent " + agent.conn->where() + ", " +
          DescribeCpu(CpuFromWire(agent.conn->hello().capabilities().cpu())),
      "measured: " + MeasureText(s.search.measure) +
          (s.plan.shapes.size() > 1 ? ", at each shape; over the shapes, the geometric mean" : ""),
      "khost tune " + Join(s.search.argv, " ")};
  if (!warm.about.empty()) comments.push_back("warm start: " + warm.about);
  KT_ASSIGN_OR_RETURN(SearchJournal file, SearchJournal::Create(path, comments, space.names()));
  KT_RETURN_IF_ERROR(WriteSearchMeta(path, meta));
  return JournalFile{path, meta, std::move(file)};
}

// A new search's warm start, from the tuning database (none with --warm-start 0): what it can
// reuse here first, up to the budget (none when it reuses nothing: --fresh), then the best
// --warm-start ones.
WarmStart WarmStartFor(const Searcher& s, const SearchSpace& space, const Budget& budget) {
  if (s.search.warm_start == 0) return {};
  std::vector<Params> shapes;
  for (const ShapeRun& r : s.plan.shapes) shapes.push_back(ShapeParams(r.shape));
  const CpuId cpu = CpuFromWire(s.agents[0].session.conn->hello().capabilities().cpu());
  WarmStartLimits limits{.count = s.search.warm_start};
  if (const std::optional<int64_t> age = ReuseAge(s.search.measure)) {
    limits.reusable = budget.evaluations;
    limits.reusable_since_ns = UnixNowNs() - *age * 1'000'000'000;
  }
  return FindWarmStart(s.search.db, s.plan.spec.name, CpuFingerprint(cpu), shapes, space, limits);
}

// The budget: the one asked, or every feasible configuration (grid) when that is fewer.
Budget BudgetOf(const SearchOptions& search, const SearchSpace& space) {
  Budget b{search.strategy, search.budget.value_or(space.size())};
  if (b.evaluations > space.size()) {
    std::cout << "khost tune: the budget of " << b.evaluations << " evaluations is more than the "
              << space.size() << " feasible configurations: measuring every one (grid)\n";
    b = {StrategyKind::kGrid, space.size()};
  }
  return b;
}

// How far the search went.
struct SearchProgress {
  size_t evaluated = 0, infeasible = 0, evaluated_now = 0;
  std::optional<Evaluation> best;
  size_t best_at = 0;
  std::string stopped = "the strategy has nothing more to try";
};

// Evaluates the configurations of `asked` that `known` lacks, journaling each; how many.
Result<size_t> EvaluateMissing(Searcher& s, JournalFile& journal, const SearchSpace& space,
                               const std::vector<size_t>& asked,
                               std::map<Config, Evaluation>& known) {
  std::vector<Config> missing;
  for (size_t a : asked) {
    if (!known.count(space.config(a))) missing.push_back(space.config(a));
  }
  if (missing.empty()) return size_t{0};
  // The batch a search cut short was measuring holds what is missing here (all of it, or the
  // part not journaled yet): it is evaluated again, so that its run is continued.
  const std::optional<SearchMeta::Batch>& cut = s.meta.pending;
  const bool continues =
      cut && std::all_of(missing.begin(), missing.end(), [&](const Config& c) {
        return std::find(cut->configs.begin(), cut->configs.end(), c) != cut->configs.end();
      });
  KT_ASSIGN_OR_RETURN(const std::vector<Evaluation> got,
                      s.Evaluate(continues ? cut->configs : missing));
  for (const Evaluation& e : got) {
    if (known.count(e.config)) continue;
    KT_RETURN_IF_ERROR(journal.file.Append(e));
    known[e.config] = e;
  }
  return missing.size();
}

void SayProgress(const SearchProgress& p, const Budget& budget, const SearchSpace& space) {
  std::cout << "evaluated " << p.evaluated << " of " << budget.evaluations << " (" << p.infeasible
            << " infeasible)"
            << (p.best ? ", best " + FormatTime(*p.best->time_ns, "ns") + " (" +
                             ConfigText(space.names(), p.best->config) + ")"
                       : std::string())
            << std::endl;
}

// configs.json lists every configuration measured ok, so that khost run and report see them.
Status ListMeasured(const Searcher& s, const std::map<Config, Evaluation>& known) {
  std::vector<Config> ok;
  for (const auto& [config, e] : known) {
    if (e.time_ns) ok.push_back(config);
  }
  if (ok.empty()) return Status::Ok();
  const std::vector<VariantJob> jobs =
      PlanVariants(s.plan.spec, s.plan.toolchain, ok, {}, s.run_dir);
  const std::vector<VariantBuild> builds(jobs.size(), VariantBuild{BuildState::kCached, "", 0});
  return WriteFileAtomic(s.run_dir + "/configs.json",
                         ConfigsJson(s.plan.spec, jobs, builds, s.plan.shapes,
                                     BuildRecord(s.plan.spec, s.plan.toolchain, s.shared_key)));
}

// The strategy's loop: asks for a batch, evaluates what the journal lacks (journaling each), tells
// the strategy every time, until the budget, the time budget or the strategy ends it.
Result<SearchProgress> SearchLoop(Searcher& s, JournalFile& journal, const SearchSpace& space,
                                  const Budget& budget, const std::function<double()>& elapsed) {
  std::map<Config, Evaluation> known;
  for (const Evaluation& e : journal.file.evaluations().rows) known[e.config] = e;
  std::cout << "search " << s.plan.spec.name << " with " << StrategyName(budget.kind) << " (seed "
            << s.tune.seed << "): budget " << budget.evaluations << " of " << space.size()
            << " feasible configurations, batches of " << s.search.batch << ", journal "
            << journal.path
            << (known.empty() ? "" : " (" + std::to_string(known.size()) + " evaluations kept)")
            << "\n";
  if (!s.meta.warm_about.empty()) std::cout << "warm start: " << s.meta.warm_about << "\n";
  StrategyOptions options{.seed = s.tune.seed, .budget = budget.evaluations};
  SetWarmStart(options, space, s.meta.warm_start, s.meta.warm_here);
  const std::unique_ptr<Strategy> strategy = MakeStrategy(budget.kind, space, options);
  SearchProgress p;
  while (true) {
    if (p.evaluated >= budget.evaluations) {
      p.stopped = "the budget of " + std::to_string(budget.evaluations) + " evaluations is spent";
      break;
    }
    if (s.search.budget_seconds && elapsed() >= *s.search.budget_seconds) {
      p.stopped = "the time budget of " + FormatDouble(*s.search.budget_seconds) + " s is spent";
      break;
    }
    const std::vector<size_t> asked =
        strategy->Ask(std::min(s.search.batch, budget.evaluations - p.evaluated));
    if (asked.empty()) break;
    KT_ASSIGN_OR_RETURN(const size_t measured, EvaluateMissing(s, journal, space, asked, known));
    if (measured) {
      p.evaluated_now += measured;
      s.meta.elapsed_s = elapsed();
      s.meta.pending.reset();
      KT_RETURN_IF_ERROR(WriteSearchMeta(journal.path, s.meta));
    }
    for (size_t a : asked) {
      const Evaluation& e = known.at(space.config(a));
      strategy->Tell(a, e.time_ns);
      ++p.evaluated;
      if (!e.time_ns) ++p.infeasible;
      if (e.time_ns && (!p.best || *e.time_ns < *p.best->time_ns)) {
        p.best = e;
        p.best_at = p.evaluated;
      }
    }
    if (measured) SayProgress(p, budget, space);
  }
  KT_RETURN_IF_ERROR(ListMeasured(s, known));
  return p;
}

}  // namespace

Status RunSearch(const TuneOptions& tune, const SearchOptions& search) {
  const Clock::time_point start = Clock::now();
  KT_ASSIGN_OR_RETURN(TunePlan plan, PrepareTune(tune));
  if (search.measure.adaptive && plan.shapes.size() > 1) return InvalidArgument(kAdaptiveShapes);
  KT_ASSIGN_OR_RETURN(const SearchSpace space, SpaceOf(plan));
  const Budget budget = BudgetOf(search, space);
  KT_ASSIGN_OR_RETURN(std::string run_dir, RunDirBeneath(tune.root, plan.spec.name));
  Searcher s{.tune = tune, .search = search, .plan = std::move(plan), .run_dir = run_dir};
  RunRecorder recorder("khost tune", search.db, tune.root);
  s.recorder = &recorder;
  std::optional<JournalFile> journal;
  if (search.resume) {
    KT_ASSIGN_OR_RETURN(journal, ResumeJournal(s, space));
  }
  s.bin_dir = std::filesystem::absolute(run_dir + "/bin").lexically_normal().string();
  s.parallel = BuildParallelism(s.plan.toolchain, tune.jobs).count;
  KT_ASSIGN_OR_RETURN(s.agents, OpenAgents({search.agent}, search.token_file));
  KT_ASSIGN_OR_RETURN(s.shared_key, SharedKey(s.plan.spec, s.plan.toolchain));
  KT_RETURN_IF_ERROR(WriteShapesTestData(s.plan, run_dir));
  KT_RETURN_IF_ERROR(MakeDirs(s.bin_dir));
  if (!journal) {
    KT_ASSIGN_OR_RETURN(journal, CreateJournal(s, space, budget, WarmStartFor(s, space, budget)));
  }
  s.path = journal->path;
  s.meta = journal->meta;
  const double elapsed_before = s.meta.elapsed_s;
  const auto elapsed = [&] {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - start).count();
  };
  KT_ASSIGN_OR_RETURN(const SearchProgress p, SearchLoop(s, *journal, space, budget, elapsed));
  std::cout << "search done: " << p.evaluated << " evaluations (" << p.evaluated_now
            << " evaluated now"
            << (s.reused ? "; of their variants " + std::to_string(s.measured) + " measured, " +
                               std::to_string(s.reused) + " reused from the tuning database;"
                         : std::string(","))
            << " " << p.infeasible << " infeasible) of " << space.size()
            << " feasible configurations in " << FormatDouble(std::round(elapsed() * 10) / 10)
            << " s; " << p.stopped << "\n";
  if (p.evaluated == 0) return Unavailable("nothing was evaluated: " + p.stopped);
  if (!p.best) return Unavailable("no configuration could be measured (see " + s.path + ")");
  std::cout << "best: " << ConfigText(space.names(), p.best->config) << ", "
            << FormatTime(*p.best->time_ns, "ns") << ", found at evaluation " << p.best_at
            << " (run " << p.best->run << ")\n";
  return Status::Ok();
}

}  // namespace ktune::host
