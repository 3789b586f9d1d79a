// The search benchmark (issue 22): each strategy replayed over recorded landscapes -- full-grid
// measurements saved as evaluations files (test_data/landscapes/, host/results/evaluations.h) --
// for many seeds, against random search in the same table.
//
//   search_replay [--seeds N] [--batch B] [--budget PCT] [--only NAME] FILE...
//   search_replay --transfer [--warm-top K] [--seeds N] [--batch B] [--budget PCT] FILE...
//
// --transfer (issue 35): each file searched cold, and warm-started from each other file's K
// fastest configurations (default 5) as khost tune --strategy warm-starts from the tuning
// database; evaluations to within 2%, median and p90, and warm over cold. The source the tuning
// database would answer with, holding every other file's shape on one board (the nearest shape,
// then the one with the most configurations), is marked.
//
// For each file and strategy: the evaluations until the best found is within 5% and within 2% of
// the grid's optimum (median and 90th percentile over the seeds; ">" when a seed did not get
// there within the budget, PCT percent of the grid, default 50), and how far the best found is
// from the optimum after 10%, 20% and 50% of the grid's evaluations (median over the seeds).
// Grid search is one ordering (the spec's), so its row is one "seed". Markdown on stdout.
//
// Built with dlib (libdlib-dev, found by bench/CMakeLists.txt), a last row replays dlib's global
// optimizer (global_function_search: LIPO upper bounds and a trust region, the method of
// find_min_global) over the parameters' value indices as integer variables, one point at a time:
// the candidate to compare ktune's bayes against (issue 22 item 3). A point the constraints
// remove costs no evaluation and reads as 10 times the slowest time, as does an infeasible one
// (which costs one); a point asked again costs nothing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/strings.h"
#include "host/db/tuning_db.h"
#include "host/results/evaluations.h"
#include "host/results/shape_sets.h"
#include "host/strategy/replay.h"

#ifdef KTUNE_HAVE_DLIB
#include <dlib/global_optimization.h>
#endif

namespace ktune::host {
namespace {

constexpr const char* kUsage =
    "usage: search_replay [--seeds N] [--batch B] [--budget PCT] [--only NAME] "
    "[--transfer [--warm-top K]] FILE...\n";

// The q-quantile (nearest rank) of sorted values.
size_t Quantile(const std::vector<size_t>& sorted, double q) {
  const size_t rank = static_cast<size_t>(std::ceil(q * sorted.size()));
  return sorted[std::max<size_t>(rank, 1) - 1];
}

std::string Count(size_t n, size_t budget, size_t grid) {
  char text[64];
  if (n > budget) {
    std::snprintf(text, sizeof text, ">%zu (>%.0f%%)", budget, 100.0 * budget / grid);
  } else {
    std::snprintf(text, sizeof text, "%zu (%.1f%%)", n, 100.0 * n / grid);
  }
  return text;
}

std::string Gap(double best, double optimum) {
  if (!std::isfinite(best)) return "none";
  char text[32];
  std::snprintf(text, sizeof text, "+%.1f%%", 100 * (best / optimum - 1));
  return text;
}

#ifdef KTUNE_HAVE_DLIB
// dlib's global optimizer over the landscape, to `budget` evaluations (see the top).
Trace ReplayDlib(const Landscape& l, uint64_t seed, size_t budget) {
  const size_t dims = l.space.dimensions();
  dlib::matrix<double, 0, 1> lower(dims), upper(dims);
  std::vector<bool> integer(dims, true);
  for (size_t d = 0; d < dims; ++d) {
    lower(d) = 0;
    upper(d) = static_cast<double>(l.space.values()[d].size() - 1);
  }
  dlib::global_function_search opt(dlib::function_spec(lower, upper, integer));
  opt.set_seed(seed);
  double worst = 0;
  for (const auto& t : l.time) {
    if (t) worst = std::max(worst, *t);
  }
  const double penalty = -std::log(worst * 10);
  std::vector<bool> seen(l.space.size(), false);
  Trace trace;
  double best = INFINITY;
  for (size_t asks = 0; trace.evaluated.size() < budget && asks < 50 * budget; ++asks) {
    dlib::function_evaluation_request next = opt.get_next_x();
    Point p(dims);
    for (size_t d = 0; d < dims; ++d) p[d] = static_cast<uint32_t>(std::lround(next.x()(d)));
    const size_t i = l.space.Find(p);
    if (i == l.space.size()) {
      next.set(penalty);
      continue;
    }
    next.set(l.time[i] ? -std::log(*l.time[i]) : penalty);
    if (seen[i]) continue;
    seen[i] = true;
    if (l.time[i]) best = std::min(best, *l.time[i]);
    trace.evaluated.push_back(i);
    trace.best_so_far.push_back(best);
  }
  return trace;
}
#endif

// The shape a landscape was recorded at, from its journal's first comment ("kernel K, toolchain
// T, shape M=64 N=256 K=128 RUN_COUNT=3"); empty when it names none.
Params ShapeOf(const Evaluations& e) {
  const std::string key = ", shape ";
  const size_t at = e.comments.empty() ? std::string::npos : e.comments.front().find(key);
  if (at == std::string::npos) return {};
  auto set = ParseShapeSet(e.comments.front().substr(at + key.size()));
  Params shape;
  if (set.ok()) {
    for (const auto& [name, value] : *set) shape.emplace_back(name, std::to_string(value));
  }
  return shape;
}

// A recorded landscape (its shape into `shape` when given), or nullopt after an error line.
std::optional<Landscape> Load(const std::string& file, Params* shape = nullptr) {
  auto text = ReadFile(file);
  if (!text.ok()) {
    std::cerr << "search_replay: " << text.status().message() << "\n";
    return std::nullopt;
  }
  auto evaluations = ParseEvaluations(*text);
  if (!evaluations.ok()) {
    std::cerr << "search_replay: " << file << ": " << evaluations.status().message() << "\n";
    return std::nullopt;
  }
  if (shape) *shape = ShapeOf(*evaluations);
  std::vector<Measured> measured;
  for (const Evaluation& e : evaluations->rows) measured.push_back({e.config, e.time_ns});
  auto landscape = LandscapeOf(evaluations->names, measured);
  if (!landscape.ok() || !landscape->optimum()) {
    std::cerr << "search_replay: " << file << ": no landscape with a feasible configuration\n";
    return std::nullopt;
  }
  return std::move(*landscape);
}

// The configurations of `l` that ran, fastest first: what the tuning database's best at that
// shape lists (khost tune's warm start).
std::vector<std::vector<int64_t>> Ranked(const Landscape& l) {
  std::vector<size_t> ran;
  for (size_t p = 0; p < l.space.size(); ++p) {
    if (l.time[p]) ran.push_back(p);
  }
  std::stable_sort(ran.begin(), ran.end(),
                   [&](size_t a, size_t b) { return *l.time[a] < *l.time[b]; });
  std::vector<std::vector<int64_t>> out;
  for (size_t p : ran) out.push_back(l.space.config(p));
  return out;
}

// Evaluations to within 2% of the optimum over `seeds` seeds, sorted (budget + 1: not reached).
std::vector<size_t> To2(StrategyKind kind, const Landscape& l, const std::vector<size_t>& warm,
                        size_t seeds, size_t batch, size_t budget) {
  std::vector<size_t> out;
  const size_t runs = kind == StrategyKind::kGrid ? 1 : seeds;
  for (uint64_t seed = 1; seed <= runs; ++seed) {
    const Trace t =
        Replay(kind, l, {.seed = seed, .budget = budget, .warm_start = warm}, batch, budget);
    out.push_back(EvaluationsToReach(t, *l.optimum(), 0.02).value_or(budget + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Which other landscape the tuning database would answer for landscape `t` with, all of them
// recorded on one board (host/db/tuning_db.h NearestShape); ls.size() when none is comparable.
size_t DatabaseChoice(const std::vector<Landscape>& ls, const std::vector<Params>& shapes,
                      size_t t) {
  std::vector<MeasuredShape> measured;
  std::vector<size_t> index;
  for (size_t s = 0; s < ls.size(); ++s) {
    if (s == t || ls[s].space.names() != ls[t].space.names()) continue;
    const size_t ran = std::count_if(ls[s].time.begin(), ls[s].time.end(),
                                     [](const auto& t) { return t.has_value(); });
    measured.push_back({shapes[s], ran});
    index.push_back(s);
  }
  const size_t chosen = NearestShape(measured, shapes[t]);
  return chosen < index.size() ? index[chosen] : ls.size();
}

// The transfer benchmark (issue 35): each landscape searched cold and warm-started from each
// other landscape's `top` fastest configurations, evaluations to within 2%; the source the tuning
// database would choose, holding all the others, is marked.
int Transfer(const std::vector<std::string>& files, size_t seeds, size_t batch, double budget_pct,
             size_t top, const std::string& only) {
  std::vector<Landscape> ls;
  std::vector<Params> shapes(files.size());
  for (size_t f = 0; f < files.size(); ++f) {
    auto l = Load(files[f], &shapes[f]);
    if (!l) return 1;
    ls.push_back(std::move(*l));
  }
  std::cout << "| target | warm start from | database's choice | strategy | cold: median | p90 | "
               "warm: median | p90 | warm / cold |\n|---|---|---|---|---|---|---|---|---|\n";
  for (size_t t = 0; t < ls.size(); ++t) {
    const size_t chosen = DatabaseChoice(ls, shapes, t);
    const size_t grid = ls[t].space.size();
    const size_t budget = std::max<size_t>(1, static_cast<size_t>(grid * budget_pct / 100));
    for (StrategyKind kind : {StrategyKind::kRandom, StrategyKind::kAnneal, StrategyKind::kGenetic,
                              StrategyKind::kBayes}) {
      if (!only.empty() && only != StrategyName(kind)) continue;
      const std::vector<size_t> cold = To2(kind, ls[t], {}, seeds, batch, budget);
      for (size_t s = 0; s < ls.size(); ++s) {
        if (s == t || ls[s].space.names() != ls[t].space.names()) continue;
        const std::vector<size_t> warm_points = WarmStartPoints(ls[t].space, Ranked(ls[s]), top);
        const std::vector<size_t> warm = To2(kind, ls[t], warm_points, seeds, batch, budget);
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.2f",
                      double(Quantile(warm, 0.5)) / double(Quantile(cold, 0.5)));
        std::cout << "| " << files[t] << " | " << files[s] << " (" << warm_points.size()
                  << " points) | " << (s == chosen ? "yes" : "") << " | " << StrategyName(kind)
                  << " | " << Count(Quantile(cold, 0.5), budget, grid) << " | "
                  << Count(Quantile(cold, 0.9), budget, grid) << " | "
                  << Count(Quantile(warm, 0.5), budget, grid) << " | "
                  << Count(Quantile(warm, 0.9), budget, grid) << " | " << ratio << " |"
                  << std::endl;
      }
    }
  }
  return 0;
}

int Main(int argc, char** argv) {
  size_t seeds = 100, batch = 8;
  double budget_pct = 50;
  std::string only;
  std::vector<std::string> files;
  bool transfer = false;
  size_t top = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--transfer") {
      transfer = true;
    } else if (a == "--warm-top" && i + 1 < argc) {
      top = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
    } else if ((a == "--seeds" || a == "--batch" || a == "--budget") && i + 1 < argc) {
      const double v = std::atof(argv[++i]);
      if (!(v >= 1)) {
        std::cerr << "search_replay: " << a << " must be at least 1\n";
        return 2;
      }
      if (a == "--seeds") seeds = static_cast<size_t>(v);
      if (a == "--batch") batch = static_cast<size_t>(v);
      if (a == "--budget") budget_pct = std::min(v, 100.0);
    } else if (a.starts_with("--")) {
      std::cerr << kUsage;
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (transfer) return Transfer(files, seeds, batch, budget_pct, top, only);
  for (const std::string& file : files) {
    auto landscape = Load(file);
    if (!landscape) return 1;
    const Landscape& l = *landscape;
    const double optimum = *l.optimum();
    const size_t grid = l.space.size();
    size_t feasible = 0, within5 = 0, within2 = 0;
    for (const auto& t : l.time) {
      feasible += t.has_value();
      within5 += t && *t <= optimum * 1.05;
      within2 += t && *t <= optimum * 1.02;
    }
    const size_t budget = std::max<size_t>(1, static_cast<size_t>(grid * budget_pct / 100));
    std::cout << "### " << file << "\n\n"
              << grid << " configurations (" << feasible << " ran, optimum "
              << FormatDouble(optimum / 1e6) << " ms; " << within5 << " within 5%, " << within2
              << " within 2%); " << seeds << " seeds, batches of " << batch << ", budget " << budget
              << " evaluations (" << FormatDouble(budget_pct) << "% of the grid)\n\n"
              << "| strategy | to 5%: median | p90 | to 2%: median | p90 | best after 10% | "
                 "20% | 50% |\n|---|---|---|---|---|---|---|---|\n";
    std::vector<std::pair<std::string, std::function<Trace(uint64_t)>>> rows;
    for (StrategyKind kind : {StrategyKind::kGrid, StrategyKind::kRandom, StrategyKind::kAnneal,
                              StrategyKind::kGenetic, StrategyKind::kBayes}) {
      rows.emplace_back(StrategyName(kind), [&, kind](uint64_t seed) {
        return Replay(kind, l, {.seed = seed, .budget = budget}, batch, budget);
      });
    }
#ifdef KTUNE_HAVE_DLIB
    rows.emplace_back("dlib", [&](uint64_t seed) { return ReplayDlib(l, seed, budget); });
#endif
    for (const auto& [name, replay] : rows) {
      if (!only.empty() && name != only) continue;
      const size_t runs = name == "grid" ? 1 : seeds;
      std::vector<size_t> to5, to2;
      std::vector<double> after[3];
      const double fractions[3] = {0.1, 0.2, 0.5};
      for (uint64_t seed = 1; seed <= runs; ++seed) {
        const Trace t = replay(seed);
        to5.push_back(EvaluationsToReach(t, optimum, 0.05).value_or(budget + 1));
        to2.push_back(EvaluationsToReach(t, optimum, 0.02).value_or(budget + 1));
        for (int f = 0; f < 3; ++f) {
          const size_t n = std::max<size_t>(1, static_cast<size_t>(grid * fractions[f]));
          after[f].push_back(t.best_so_far.empty()
                                 ? INFINITY
                                 : t.best_so_far[std::min(n, t.best_so_far.size()) - 1]);
        }
      }
      std::sort(to5.begin(), to5.end());
      std::sort(to2.begin(), to2.end());
      std::cout << "| " << name << " | " << Count(Quantile(to5, 0.5), budget, grid) << " | "
                << Count(Quantile(to5, 0.9), budget, grid) << " | "
                << Count(Quantile(to2, 0.5), budget, grid) << " | "
                << Count(Quantile(to2, 0.9), budget, grid);
      for (auto& a : after) {
        std::sort(a.begin(), a.end());
        std::cout << " | " << Gap(a[a.size() / 2], optimum);
      }
      std::cout << " |\n";
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace ktune::host

int main(int argc, char** argv) {
  return ktune::host::Main(argc, argv);
}
