// khost tune <kernel>: builds one static ELF per configuration of a kernel spec with a toolchain
// profile, in parallel and cached, with assembly dumps, test data, golden outputs and the seed's
// configs.json; --check runs every variant (under the profile's emulator) and checks its output;
// --apply-best writes a run's winner back into the spec and launcher constants; --strategy searches
// the space on an agent instead, building and measuring only what the strategy asks for. The
// build is host/tune/tune_run.h's, the search host/search/search.h's, the edit
// host/tune/apply_best.h's; the winner comes from the analysis.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_tune.h"
#include "host/cli/measure_options.h"
#include "host/db/tuning_db.h"
#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/report/shapes_report.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/search/search.h"
#include "host/search/search_files.h"
#include "host/tune/apply_best.h"
#include "host/tune/dispatch_header.h"
#include "host/tune/shapes.h"
#include "host/tune/tune_run.h"
#include "host/util/format.h"
#include "host/util/khost_files.h"
#include "host/util/user_paths.h"

namespace ktune::host {

namespace {

// --strategy and what goes with it (the online search, host/search/search.h).
void AddSearchOptions(cxxopts::Options& o) {
  o.add_options()("strategy",
                  "search the space on an agent: grid, random, anneal, genetic or bayes propose "
                  "configurations, which are built and measured in batches until the budget",
                  cxxopts::value<std::string>())(
      "budget", "with --strategy: evaluations at most (failed configurations count)",
      cxxopts::value<std::string>())(
      "budget-time", "with --strategy: no new batch after this many seconds of searching",
      cxxopts::value<std::string>())("batch",
                                     "with --strategy: configurations built and measured together",
                                     cxxopts::value<std::string>()->default_value("8"))(
      "warm-start",
      "with --strategy: measure first this many of the tuning database's best configurations of "
      "the kernel at the shape searched or the nearest one measured, on this board or another, "
      "after every one it can reuse at this board and shape (0: start cold)",
      cxxopts::value<std::string>()->default_value("5"))(
      "resume",
      "continue a stopped search as it was asked, measuring only what its journal lacks; the "
      "newest unless --search names one")("search", "with --resume: the search id",
                                          cxxopts::value<std::string>()->default_value(""));
}

}  // namespace

cxxopts::Options TuneCliOptions() {
  cxxopts::Options o("khost tune", "Build one ELF per configuration of a kernel.");
  o.add_options(kArgumentsGroup)("kernel",
                                 "kernel name (kernels/<name>/<name>.kspec) or a .kspec file",
                                 cxxopts::value<std::string>(), "<kernel>");
  o.add_options()("toolchain",
                  "toolchain profile: a name in the toolchains directory, or a .profile file",
                  cxxopts::value<std::string>()->default_value("rvv-clang19"))(
      "j,jobs", "parallel builds (0: one per core, or as many as distcc's hosts take)",
      cxxopts::value<std::string>()->default_value("0"))(
      "launcher",
      "run every compile through this command, as CMake's COMPILER_LAUNCHER: distcc or icecc "
      "for a compile farm (default: the toolchain profile's launcher, if any)",
      cxxopts::value<std::string>())("sample",
                                     "build N configurations drawn at random from the space",
                                     cxxopts::value<std::string>())(
      "seed", "seed of --sample and --strategy", cxxopts::value<std::string>()->default_value("0"))(
      "shape",
      "a problem shape, 'M=64 N=64 K=64' (repeatable; one giving fewer of the tensors' "
      "dimensions changes the spec's shape: M=64)",
      cxxopts::value<std::vector<std::string>>())(
      "shapes", "a file of problem shapes, one per line ('M=64 N=64 K=64', # comments)",
      cxxopts::value<std::string>())(
      "triton", "build the Triton-CPU configuration directories under DIR instead of the grid",
      cxxopts::value<std::string>())(
      "check", "run every variant (under the toolchain's emulator) and check its output")(
      "check-timeout", "seconds one checked run may take",
      cxxopts::value<std::string>()->default_value("300"))(
      "kernels", "where kernel names are looked up",
      cxxopts::value<std::string>()->default_value(ShippedDir() + "/kernels"))(
      "toolchains", "where toolchain names are looked up",
      cxxopts::value<std::string>()->default_value(ShippedDir() + "/toolchains"))(
      "apply-best",
      "build nothing: write the winner of a run (--run, default the newest) into the kernel's "
      "spec (a best: line) and launcher constants (best_constants.c, best_blk_constants.json)")(
      "run", "the run --apply-best takes the winner of",
      cxxopts::value<std::string>()->default_value(""))(
      "from-db",
      "with --apply-best: the best of every run in the tuning database at each shape the "
      "kernel's variants run at (as khost best answers, on the board of its newest run), not one "
      "run's winner");
  AddSearchOptions(o);
  AddMeasureOptions(o, /*order_seed=*/false);
  AddRootOption(o);
  AddAgentOption(o);
  AddDbOption(o);
  return o;
}

namespace {

// --resume: nothing that would change the search may go with it.
Status ParseResumeArgs(const cxxopts::ParseResult& r, const std::vector<std::string>& search_only,
                       const std::string& search_id, TuneRequest* req) {
  for (const char* o : {"toolchain", "jobs", "sample", "seed", "shape", "shapes", "triton", "check",
                        "check-timeout", "apply-best", "run", "strategy"}) {
    if (r.count(o)) {
      return InvalidArgument(std::string("--resume continues the search as it was asked; --") + o +
                             " cannot change it");
    }
  }
  for (const std::string& o : search_only) {
    if (r.count(o)) {
      return InvalidArgument("--resume continues the search as it was asked; --" + o +
                             " cannot change it");
    }
  }
  req->search = SearchOptions{};
  req->search->resume = true;
  req->search->search_id = search_id;
  return Status::Ok();
}

// --strategy and what goes with it; --resume alone.
Status ParseSearchArgs(const cxxopts::ParseResult& r, const Args& args, TuneRequest* req) {
  std::vector<std::string> search_only = {"budget", "budget-time", "batch", "warm-start",
                                          "agent",  "token-file",  "db"};
  const std::vector<std::string>& measure = MeasureOptionNames(/*order_seed=*/false);
  search_only.insert(search_only.end(), measure.begin(), measure.end());
  const std::string search_id = r["search"].as<std::string>();
  if (r.count("resume")) return ParseResumeArgs(r, search_only, search_id, req);
  if (!search_id.empty()) return InvalidArgument("--search goes with --resume");
  if (!r.count("strategy")) {
    for (const std::string& o : search_only) {
      if (o == "db" && r.count("from-db")) continue;  // the database --from-db reads
      if (r.count(o)) return InvalidArgument("--" + o + " goes with --strategy");
    }
    return Status::Ok();
  }
  for (const char* o : {"sample", "triton", "check", "apply-best"}) {
    if (r.count(o)) return InvalidArgument(std::string("--strategy cannot go with --") + o);
  }
  SearchOptions s;
  KT_ASSIGN_OR_RETURN(s.strategy, ParseStrategy(r["strategy"].as<std::string>()));
  if (r.count("budget")) {
    KT_ASSIGN_OR_RETURN(
        s.budget, IntegerOption(r, "budget", 1, kMaxGridSize, "a whole number of evaluations"));
  }
  if (r.count("budget-time")) {
    KT_ASSIGN_OR_RETURN(s.budget_seconds, RealOption(r, "budget-time", 0, 365 * 24 * 3600.0,
                                                     "a number of seconds", /*above_min=*/true));
  }
  if (s.strategy != StrategyKind::kGrid && !s.budget && !s.budget_seconds) {
    return InvalidArgument(std::string("--strategy ") + StrategyName(s.strategy) +
                           " needs --budget N or --budget-time SECONDS");
  }
  KT_ASSIGN_OR_RETURN(s.batch,
                      IntegerOption(r, "batch", 1, 10000, "a whole number of configurations"));
  KT_ASSIGN_OR_RETURN(s.warm_start,
                      IntegerOption(r, "warm-start", 0, 1000, "a whole number of configurations"));
  KT_RETURN_IF_ERROR(ParseMeasureOptions(r, &s.measure, /*order_seed=*/false));
  s.agent = r["agent"].as<std::string>();
  s.token_file = r["token-file"].as<std::string>();
  s.argv = args;
  req->search = std::move(s);
  return Status::Ok();
}

}  // namespace

Result<TuneRequest> ParseTuneArgs(const Args& args) {
  cxxopts::Options o = TuneCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  TuneRequest req;
  req.kernel = r["kernel"].as<std::string>();
  req.root = r["root"].as<std::string>();
  req.toolchain = r["toolchain"].as<std::string>();
  KT_ASSIGN_OR_RETURN(req.jobs, IntegerOption(r, "jobs", 0, kMaxJobs, "a whole number of builds"));
  if (r.count("launcher")) {
    req.launcher = SplitWords(r["launcher"].as<std::string>());
    if (req.launcher.empty()) return InvalidArgument("--launcher names no command");
  }
  if (r.count("sample")) {
    KT_ASSIGN_OR_RETURN(req.sample, IntegerOption(r, "sample", 1, kMaxGridSize,
                                                  "a whole number of configurations"));
  }
  KT_ASSIGN_OR_RETURN(req.seed, Uint64Option(r, "seed"));
  if (r.count("shape")) req.shape = r["shape"].as<std::vector<std::string>>();
  if (r.count("shapes")) req.shapes_file = r["shapes"].as<std::string>();
  if (r.count("triton")) req.triton = r["triton"].as<std::string>();
  req.check = r.count("check") > 0;
  KT_ASSIGN_OR_RETURN(req.check_timeout_seconds,
                      RealOption(r, "check-timeout", 0, 1e6, "a number of seconds",
                                 /*above_min=*/true));
  req.kernels_dir = r["kernels"].as<std::string>();
  req.toolchains_dir = r["toolchains"].as<std::string>();
  if (req.triton.size() && req.sample) {
    return InvalidArgument("--sample chooses from the grid; --triton builds the given directories");
  }
  req.apply_best = r.count("apply-best") > 0;
  req.run_id = r["run"].as<std::string>();
  if (!req.run_id.empty() && !req.apply_best)
    return InvalidArgument("--run goes with --apply-best");
  req.from_db = r.count("from-db") > 0;
  if (req.from_db && !req.apply_best) return InvalidArgument("--from-db goes with --apply-best");
  if (req.from_db && !req.run_id.empty()) {
    return InvalidArgument("--from-db takes every run in the database; --run takes one");
  }
  KT_RETURN_IF_ERROR(ParseSearchArgs(r, args, &req));
  req.db = r["db"].as<std::string>();  // with --strategy alone: ParseSearchArgs checks
  return req;
}

namespace {

// How a winner won, for comments: "kernel-time 1.2 us, faster than the runner-up".
std::string WhyItWon(const Analysis& a) {
  std::string why = a.time_name + " " + FormatTime(a.ranking.front().median, a.time_unit);
  if (a.verdict) {
    why += a.verdict->unstable          ? ", unstable run"
           : a.verdict->distinguishable ? ", faster than the runner-up"
                                        : ", not distinguishable from the runner-up";
  }
  return why;
}

// A shape's winner, as the dispatch table takes it.
ShapeWinner WinnerOf(const ShapeAnalysis& sa) {
  ShapeWinner w;
  w.shape = sa.shape;
  if (!sa.analysis) {
    w.problem = sa.problem;
    return w;
  }
  const VariantSummary& v = sa.report.variants[sa.analysis->ranking.front().variant];
  w.config = v.params;
  w.variant = v.name;
  w.why = WhyItWon(*sa.analysis);
  return w;
}

// The configuration that ran, valid, at every shape with the lowest geometric mean of its time
// over each shape's fastest (host/report/shapes_report.h) into the spec, as for one shape.
Status ApplyBestOverall(const SpecForBest& target, const std::vector<ShapeAnalysis>& shapes,
                        const std::string& run_id) {
  const AcrossShapes across = CompareShapes(shapes);
  if (!across.overall) {
    std::cout << "no configuration ran, valid, at every shape: the spec's best: line is left as "
                 "it is\n";
    return Status::Ok();
  }
  std::string name;  // the overall's ELF
  for (const VariantSummary& v : shapes.front().report.variants) {
    if (v.params == across.configs[*across.overall]) name = v.name;
  }
  BestChoice best{run_id,
                  name,
                  {},
                  "best overall at " + std::to_string(shapes.size()) +
                      " shapes, geometric mean of its time over each shape's fastest " +
                      FormatRatio(*across.overall_geomean)};
  for (const SpecParam& p : target.spec.params) {
    best.values.push_back(ParamValue(across.configs[*across.overall], p.name, ""));
  }
  KT_ASSIGN_OR_RETURN(const std::string best_line, ApplyBest(target, best));
  std::cout << "applied the best overall of run " << best.run_id << " to " << target.spec.path
            << ": " << best_line << "\n"
            << "wrote " << target.spec.dir << "/best_constants.c and best_blk_constants.json\n";
  return Status::Ok();
}

// A run of several shapes: each shape's winner into <kernel>_dispatch.h beside the spec
// (host/tune/dispatch_header.h), and the best overall into the spec.
Status ApplyShapesOfRun(const SpecForBest& target, const LoadedRun& run) {
  const KernelSpec& spec = target.spec;
  AnalyzeOptions options;  // as khost analyze weighs the run
  options.interleaved = run.meta && run.meta->order == "interleaved";
  const std::vector<ShapeAnalysis> shapes = AnalyzeEachShape(run.rows, run.metrics, options);
  std::vector<ShapeWinner> winners;
  for (const ShapeAnalysis& sa : shapes) winners.push_back(WinnerOf(sa));
  std::vector<std::string> notes;
  KT_ASSIGN_OR_RETURN(
      const DispatchTable table,
      MakeDispatchTable(spec, shapes.empty() ? "" : shapes.front().report.run_id, winners, &notes));
  for (const std::string& note : notes) std::cout << note << "\n";
  KT_ASSIGN_OR_RETURN(const std::string header, DispatchHeader(table));
  const std::string path = spec.dir + "/" + spec.name + "_dispatch.h";
  KT_RETURN_IF_ERROR(WriteUserFile(path, header));
  std::cout << "wrote " << path << ": the winner at each of " << table.entries.size()
            << " shapes, and " << spec.name << "_dispatch()\n";
  return ApplyBestOverall(target, shapes, table.run_id);
}

// khost tune --apply-best: the run's winner (host/report/analysis.h) into the spec and launcher
// constants beside it (host/tune/apply_best.h).
Status ApplyBestOfRun(const TuneRequest& req) {
  KT_ASSIGN_OR_RETURN(const SpecForBest target, ReadSpecForBest(req.kernel, req.kernels_dir));
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(req.root, target.spec.name));
  KT_ASSIGN_OR_RETURN(const LoadedRun run, LoadRun(run_dir, req.run_id));
  PrintRunWarnings("tune", run);
  if (SeveralShapes(run.rows)) return ApplyShapesOfRun(target, run);
  const RunReport report = BuildRunReport(run);
  KT_ASSIGN_OR_RETURN(const Analysis a, Analyze(report));
  const VariantSummary& winner = report.variants[a.ranking.front().variant];
  BestChoice best{a.run_id, winner.name, {}, WhyItWon(a)};
  for (const SpecParam& p : target.spec.params) best.values.push_back(winner.Param(p.name, ""));
  KT_ASSIGN_OR_RETURN(const std::string best_line, ApplyBest(target, best));
  std::cout << "applied the winner of run " << a.run_id << " to " << target.spec.path << ": "
            << best_line << "\n"
            << "wrote " << target.spec.dir << "/best_constants.c and best_blk_constants.json\n";
  if (a.verdict) std::cout << "verdict: " << a.verdict->text << "\n";
  return Status::Ok();
}

// The database's best at `shape` (khost best, every run), as a dispatch table's winner; its
// problem says why there is none (no result at that shape on the board).
ShapeWinner WinnerFromDb(TuningDb& db, const std::string& kernel, const Params& shape,
                         std::string* run_id) {
  ShapeWinner w{shape, {}, "", "", ""};
  auto a = db.Best({.kernel = kernel, .shape = shape, .shape_given = !shape.empty()});
  if (!a.ok()) {
    w.problem = a.status().message();
  } else if (a->fallback != "same board and shape") {
    w.problem = "the tuning database has no result at " + ShapeLabel(shape) + " on the board";
  } else {
    const BestEntry& e = a->entries.front();
    w.config = ParseParams(e.config).value();
    w.variant = e.config;
    *run_id = e.run_id;
    w.why = e.metric + " " + FormatTime(e.median_ns, "ns") + ", the best of every run in the " +
            "tuning database (run " + e.run_id + ")";
  }
  return w;
}

// khost tune --apply-best --from-db: the database's best at each shape of the kernel's variants,
// into the spec (one shape) or the dispatch header (several).
Status ApplyBestFromDb(const TuneRequest& req) {
  KT_ASSIGN_OR_RETURN(const SpecForBest target, ReadSpecForBest(req.kernel, req.kernels_dir));
  KT_ASSIGN_OR_RETURN(const KernelDir dir, LoadKernelDir(req.root, target.spec.name));
  KT_ASSIGN_OR_RETURN(std::unique_ptr<TuningDb> db, OpenDbFor(req.db, /*create=*/false));
  std::vector<ShapeWinner> winners;
  std::string run_id;  // of the last winner's result
  for (const KernelVariant& v : dir.variants) {
    if (std::none_of(winners.begin(), winners.end(),
                     [&](const ShapeWinner& w) { return w.shape == v.shape; })) {
      winners.push_back(WinnerFromDb(*db, target.spec.name, v.shape, &run_id));
    }
  }
  if (winners.size() > 1) {
    std::vector<std::string> notes;
    KT_ASSIGN_OR_RETURN(const DispatchTable table,
                        MakeDispatchTable(target.spec, "the tuning database", winners, &notes));
    for (const std::string& note : notes) std::cout << note << "\n";
    KT_ASSIGN_OR_RETURN(const std::string header, DispatchHeader(table));
    const std::string path = target.spec.dir + "/" + target.spec.name + "_dispatch.h";
    KT_RETURN_IF_ERROR(WriteUserFile(path, header));
    std::cout << "wrote " << path << ": the database's best at each of " << table.entries.size()
              << " shapes, and " << target.spec.name << "_dispatch()\n";
    return Status::Ok();
  }
  const ShapeWinner& w = winners.front();
  if (!w.problem.empty()) return NotFound("--from-db: " + w.problem);
  BestChoice best{run_id, w.variant, {}, w.why};
  for (const SpecParam& p : target.spec.params)
    best.values.push_back(ParamValue(w.config, p.name, ""));
  KT_ASSIGN_OR_RETURN(const std::string best_line, ApplyBest(target, best));
  std::cout << "applied the tuning database's best (" << w.why << ") to " << target.spec.path
            << ": " << best_line << "\n";
  return Status::Ok();
}

// khost tune --resume: the stopped search's own arguments, parsed again, under this --root.
Status ResumeSearch(const TuneRequest& req) {
  KT_ASSIGN_OR_RETURN(const KernelSpec spec, LoadKernelSpec(req.kernel, req.kernels_dir));
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(req.root, spec.name));
  KT_ASSIGN_OR_RETURN(const std::string path, FindSearchFile(run_dir, req.search->search_id));
  KT_ASSIGN_OR_RETURN(const SearchMeta meta, ReadSearchMeta(path));
  auto asked = ParseTuneArgs(meta.argv);
  if (!asked.ok() || !asked->search) {
    return InvalidArgument(path + ": the search's arguments no longer parse" +
                           (asked.ok() ? "" : " (" + asked.status().message() + ")"));
  }
  TuneRequest again = std::move(asked).value();
  again.root = req.root;
  again.search->resume = true;
  again.search->search_id = std::filesystem::path(path).stem().string();
  KT_ASSIGN_OR_RETURN(again.search->db, DbFor(again.db));  // the search's own --db
  return RunSearch(again, *again.search);
}

Status ExecuteTune(const TuneRequest& req) {
  if (req.search && req.search->resume) return ResumeSearch(req);
  if (req.search) {
    TuneRequest with_db = req;
    KT_ASSIGN_OR_RETURN(with_db.search->db, DbFor(req.db));
    return RunSearch(with_db, *with_db.search);
  }
  if (req.apply_best) return req.from_db ? ApplyBestFromDb(req) : ApplyBestOfRun(req);
  return RunTune(req);
}

}  // namespace

int TuneMain(const Args& args) {
  return CommandMain("tune", TuneCliOptions, ParseTuneArgs, ExecuteTune, args);
}

}  // namespace ktune::host
