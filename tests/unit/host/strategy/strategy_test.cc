#include "host/strategy/strategy.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "host/strategy/replay.h"

namespace ktune::host {
namespace {

const StrategyKind kAll[] = {StrategyKind::kGrid, StrategyKind::kRandom, StrategyKind::kAnneal,
                             StrategyKind::kGenetic, StrategyKind::kBayes};

// An n x n x n grid (values 0..n-1; n = 10 unless said) less the points with a + b + c >
// 24 * n / 10 (the constraint), timed by a bowl with its one minimum at (3, 6, 2) (scaled to n):
// 1 + distance^2 / 20. With `failing`, one point in five (by a fixed pattern) is infeasible, the
// minimum and its neighbours excepted.
Landscape Bowl(bool failing = false, int64_t n = 10) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  const int64_t ma = 3 * n / 10, mb = 6 * n / 10, mc = 2 * n / 10;
  std::vector<std::vector<int64_t>> configs;
  for (int64_t a : v) {
    for (int64_t b : v) {
      for (int64_t c : v) {
        if (a + b + c <= 24 * n / 10) configs.push_back({a, b, c});
      }
    }
  }
  Landscape l{SearchSpace::Make({"A", "B", "C"}, {v, v, v}, configs).value(), {}};
  for (size_t i = 0; i < l.space.size(); ++i) {
    const auto c = l.space.config(i);
    const double d2 = std::pow(c[0] - ma, 2) + std::pow(c[1] - mb, 2) + std::pow(c[2] - mc, 2);
    const bool fails = failing && d2 > 3 && (c[0] * 7 + c[1] * 3 + c[2]) % 5 == 0;
    l.time.push_back(fails ? std::nullopt : std::optional<double>(1 + d2 / 20));
  }
  return l;
}

TEST_CASE("strategies: names parse; an unknown one is refused") {
  for (StrategyKind k : kAll) CHECK(ParseStrategy(StrategyName(k)).value() == k);
  auto bad = ParseStrategy("hill");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "unknown strategy 'hill' (grid, random, anneal, genetic, bayes)");
}

TEST_CASE("every strategy asks feasible points, never one twice, and stops when out of points") {
  const Landscape l = Bowl(true, 6);
  for (StrategyKind k : kAll) {
    CAPTURE(StrategyName(k));
    const Trace t = Replay(k, l, {.seed = 7, .budget = 0}, 4, 100000);
    std::set<size_t> seen(t.evaluated.begin(), t.evaluated.end());
    CHECK(seen.size() == t.evaluated.size());
    CHECK(*seen.rbegin() < l.space.size());
    if (k == StrategyKind::kGrid || k == StrategyKind::kRandom || k == StrategyKind::kBayes) {
      CHECK(t.evaluated.size() == l.space.size());  // these go on until every point is measured
    }
    // The optimum (1.0) is feasible; whoever measured it knows it.
    const bool found = seen.count(l.space.Find(Point{1, 3, 1})) > 0;
    CHECK((t.best_so_far.back() == 1.0) == found);
  }
}

TEST_CASE("grid asks in the space's order; random is a seeded permutation") {
  const Landscape l = Bowl();
  const Trace grid = Replay(StrategyKind::kGrid, l, {}, 7, 50);
  for (size_t i = 0; i < grid.evaluated.size(); ++i) CHECK(grid.evaluated[i] == i);
  const Trace a = Replay(StrategyKind::kRandom, l, {.seed = 1}, 5, 1000);
  const Trace b = Replay(StrategyKind::kRandom, l, {.seed = 2}, 5, 1000);
  CHECK(a.evaluated != b.evaluated);
  std::vector<size_t> sorted = a.evaluated;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) CHECK(sorted[i] == i);
}

TEST_CASE("every strategy is deterministic for a seed, whatever the batch size is told") {
  const Landscape l = Bowl(true, 6);
  for (StrategyKind k : kAll) {
    CAPTURE(StrategyName(k));
    const StrategyOptions o{.seed = 42, .budget = 100};
    CHECK(Replay(k, l, o, 3, 100).evaluated == Replay(k, l, o, 3, 100).evaluated);
  }
}

// The median, over 7 seeds, of the evaluations to reach the optimum.
size_t MedianToOptimum(StrategyKind k, const Landscape& l, size_t budget, size_t batch) {
  std::vector<size_t> n;
  for (uint64_t seed = 1; seed <= 7; ++seed) {
    const Trace t = Replay(k, l, {.seed = seed, .budget = budget}, batch, budget);
    n.push_back(EvaluationsToReach(t, *l.optimum(), 0).value_or(budget + 1));
  }
  std::sort(n.begin(), n.end());
  return n[n.size() / 2];
}

TEST_CASE("on an easy landscape the strategies that learn find the optimum in a fraction of it") {
  // 512 points less the constraint's 4: 508. Random search needs about half of them.
  const Landscape l = Bowl(true, 8);
  REQUIRE(l.space.size() == 508);
  CHECK(MedianToOptimum(StrategyKind::kRandom, l, 508, 1) > 120);     // 212 when written
  CHECK(MedianToOptimum(StrategyKind::kBayes, l, 120, 1) <= 40);      // 17
  CHECK(MedianToOptimum(StrategyKind::kAnneal, l, 250, 1) <= 150);    // 60
  CHECK(MedianToOptimum(StrategyKind::kGenetic, l, 400, 20) <= 150);  // 63
  // Batches of 4 cost Bayesian optimization little here.
  CHECK(MedianToOptimum(StrategyKind::kBayes, l, 120, 4) <= 50);  // 17
}

TEST_CASE("a warm start is asked first, in its order, once, whatever the strategy") {
  const Landscape l = Bowl(true, 6);
  const size_t a = l.space.Find(Point{4, 1, 2}), b = l.space.Find(Point{0, 0, 0});
  REQUIRE(a < l.space.size());
  // Given twice, and a point out of the space: each point asked once, the stranger never.
  const std::vector<size_t> warm = {a, b, a, l.space.size() + 3};
  for (StrategyKind k : kAll) {
    CAPTURE(StrategyName(k));
    const Trace t = Replay(k, l, {.seed = 5, .budget = 60, .warm_start = warm}, 1, 60);
    REQUIRE(t.evaluated.size() >= 2);
    CHECK(t.evaluated[0] == a);
    CHECK(t.evaluated[1] == b);
    CHECK(std::count(t.evaluated.begin(), t.evaluated.end(), a) == 1);
    CHECK(std::set<size_t>(t.evaluated.begin(), t.evaluated.end()).size() == t.evaluated.size());
  }
  // Grid goes on in the space's order after it.
  const Trace grid = Replay(StrategyKind::kGrid, l, {.warm_start = {5, 2}}, 4, 6);
  CHECK(grid.evaluated == std::vector<size_t>{5, 2, 0, 1, 3, 4});
}

TEST_CASE("anneal walks on from the best warm point; genetic breeds from the warm points") {
  const Landscape l = Bowl(false, 8);
  const size_t good = l.space.Find(Point{3, 4, 1}), bad = l.space.Find(Point{0, 0, 7});
  const Trace anneal =
      Replay(StrategyKind::kAnneal, l, {.seed = 9, .budget = 50, .warm_start = {bad, good}}, 1, 3);
  REQUIRE(anneal.evaluated.size() == 3);
  // The walk's first step: a neighbour of the better warm point.
  std::vector<size_t> near = l.space.HammingNeighbours(good);
  const std::vector<size_t> adjacent = l.space.AdjacentNeighbours(good);
  near.insert(near.end(), adjacent.begin(), adjacent.end());
  CHECK(std::count(near.begin(), near.end(), anneal.evaluated[2]) == 1);
  // Genetic: its first generation (20) holds the warm points, asked first as one batch.
  const Trace genetic =
      Replay(StrategyKind::kGenetic, l, {.seed = 9, .warm_start = {good, bad}}, 20, 20);
  CHECK(genetic.evaluated[0] == good);
  CHECK(genetic.evaluated[1] == bad);
}

TEST_CASE("warm-started near the optimum, Bayesian optimization is there at once") {
  const Landscape l = Bowl(true, 8);
  // Points one step from the optimum (2, 4, 1), 5% slower than it: measured at this shape (an
  // earlier build) or at another (transferred, checked against the random draws).
  std::vector<size_t> warm;
  for (const Point& p : {Point{1, 4, 1}, Point{2, 5, 1}, Point{2, 4, 2}}) {
    warm.push_back(l.space.Find(p));
  }
  for (size_t here : {warm.size(), size_t{0}}) {
    CAPTURE(here);
    std::vector<size_t> cold_5, warm_5, cold_0, warm_0;
    for (uint64_t seed = 1; seed <= 7; ++seed) {
      for (bool w : {false, true}) {
        const StrategyOptions o{.seed = seed,
                                .budget = 120,
                                .warm_start = w ? warm : std::vector<size_t>{},
                                .warm_here = here};
        const Trace t = Replay(StrategyKind::kBayes, l, o, 4, 120);
        (w ? warm_5 : cold_5).push_back(EvaluationsToReach(t, *l.optimum(), 0.05).value_or(121));
        (w ? warm_0 : cold_0).push_back(EvaluationsToReach(t, *l.optimum(), 0).value_or(121));
      }
    }
    for (auto* v : {&cold_5, &warm_5, &cold_0, &warm_0}) std::sort(v->begin(), v->end());
    MESSAGE("bayes, median of 7 seeds: to 5% cold ", cold_5[3], ", warm ", warm_5[3],
            "; to the optimum cold ", cold_0[3], ", warm ", warm_0[3]);
    CHECK(warm_5.back() == 1);  // every seed: its first point
    CHECK(cold_5[3] > 4);
    if (here) {
      // Measured here, the warm points replace random draws, and the model is no worse for it.
      CHECK(warm_0[3] <= cold_0[3]);
    } else {
      // Transferred, they come in addition to the draws and stay out of the model.
      CHECK(warm_0[3] <= cold_0[3] + warm.size());
    }
  }
}

TEST_CASE("points transferred from another shape stay out of bayes's model: it goes on as cold") {
  const Landscape l = Bowl(true, 8);
  // Another shape's best, far from this one's optimum and slow here.
  std::vector<size_t> warm;
  for (const Point& p : {Point{7, 0, 7}, Point{7, 1, 7}, Point{6, 0, 7}}) {
    warm.push_back(l.space.Find(p));
    REQUIRE(warm.back() < l.space.size());
  }
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    const Trace cold = Replay(StrategyKind::kBayes, l, {.seed = seed, .budget = 60}, 1, 60);
    const Trace t = Replay(StrategyKind::kBayes, l,
                           {.seed = seed, .budget = 63, .warm_start = warm, .warm_here = 0}, 1, 63);
    REQUIRE(t.evaluated.size() == 63);
    CHECK(std::vector<size_t>(t.evaluated.begin(), t.evaluated.begin() + 3) == warm);
    // After them, the same points as the cold search, in its order (the same random draws, as
    // many, then the same model), up to where cold asks one of them (a corner, to explore).
    const size_t same =
        std::find_first_of(cold.evaluated.begin(), cold.evaluated.end(), warm.begin(), warm.end()) -
        cold.evaluated.begin();
    CHECK(same >= 15);  // 6 random draws, then at least 9 of the model's
    CHECK(std::vector<size_t>(t.evaluated.begin() + 3, t.evaluated.begin() + 3 + same) ==
          std::vector<size_t>(cold.evaluated.begin(), cold.evaluated.begin() + same));
    // Counted among the draws instead (measured here), they change the search.
    const Trace here =
        Replay(StrategyKind::kBayes, l,
               {.seed = seed, .budget = 63, .warm_start = warm, .warm_here = 3}, 1, 63);
    CHECK(std::vector<size_t>(here.evaluated.begin() + 3, here.evaluated.begin() + 3 + same) !=
          std::vector<size_t>(cold.evaluated.begin(), cold.evaluated.begin() + same));
  }
}

TEST_CASE("warm start points: the configurations the space holds, in order, at most as asked") {
  const SearchSpace space =
      SearchSpace::Make({"A", "B"}, {{1, 2}, {8, 16}}, {{1, 8}, {1, 16}, {2, 8}}).value();
  const std::vector<std::vector<int64_t>> ranked = {{2, 16}, {2, 8}, {3, 8}, {1, 8},
                                                    {2, 8},  {1},    {1, 16}};
  CHECK(WarmStartPoints(space, ranked, 10) == std::vector<size_t>{2, 0, 1});
  CHECK(WarmStartPoints(space, ranked, 2) == std::vector<size_t>{2, 0});
  CHECK(WarmStartPoints(space, {}, 3).empty());
  // The first four configurations measured here: two of them in the space.
  StrategyOptions o;
  SetWarmStart(o, space, ranked, 4);
  CHECK(o.warm_start == std::vector<size_t>{2, 0, 1});
  CHECK(o.warm_here == 2);
  SetWarmStart(o, space, ranked, 99);
  CHECK(o.warm_here == 3);
}

TEST_CASE("strategies on a space of one point, and on a space where everything fails") {
  Landscape one{SearchSpace::Make({"A"}, {{1}}, {{1}}).value(), {2.0}};
  Landscape none{SearchSpace::Make({"A"}, {{1, 2, 3}}, {{1}, {2}, {3}}).value(),
                 {std::nullopt, std::nullopt, std::nullopt}};
  for (StrategyKind k : kAll) {
    CAPTURE(StrategyName(k));
    const Trace t = Replay(k, one, {.seed = 3}, 2, 10);
    REQUIRE(t.evaluated.size() == 1);
    CHECK(t.best_so_far[0] == 2.0);
    const Trace f = Replay(k, none, {.seed = 3}, 2, 10);
    CHECK(f.evaluated.size() <= 3);
    for (double b : f.best_so_far) CHECK(std::isinf(b));
    CHECK_FALSE(none.optimum().has_value());
  }
}

TEST_CASE("evaluations to reach: the first evaluation within the margin, 1-based") {
  Trace t;
  t.best_so_far = {INFINITY, 1.5, 1.05, 1.05, 1.0};
  CHECK(EvaluationsToReach(t, 1.0, 0.05) == 3);
  CHECK(EvaluationsToReach(t, 1.0, 0.0) == 5);
  CHECK(EvaluationsToReach(t, 1.0, 1.0) == 2);
  CHECK_FALSE(EvaluationsToReach(t, 0.5, 0.02).has_value());
  CHECK_FALSE(EvaluationsToReach(Trace{}, 1.0, 0.5).has_value());
}

}  // namespace
}  // namespace ktune::host
