// A genetic algorithm as Kernel Tuner's genetic_algorithm strategy (version 1.0's defaults:
// population 20, at most 100 generations, uniform crossover, a mutation for one child in 10):
//
// - The first generation is a warm start's points (as many as fit), then points drawn at
//   random. A generation's members not measured yet are asked as one batch (so they build in
//   parallel); members measured before cost nothing.
// - The next generation: the population ranked by time (infeasible last); two distinct parents
//   drawn by rank, rank = floor(popsize * x) with x ~ Beta(1, 2.5) (drawn by its inverse CDF,
//   1 - (1 - u)^(1 / 2.5)), which favours the best; uniform crossover (each parameter from either
//   parent by a coin) gives two children; a child mutates with probability 1/10 into a random
//   Hamming neighbour (one parameter changed to another of its values).
// - A child outside the feasible space, or already in the new generation, is dropped, as Kernel
//   Tuner 1.0 drops them; a generation still short after 20 tries per member is filled with
//   random points not yet asked (Kernel Tuner leaves it short).
// - No elitism: the new generation replaces the old.
#include <algorithm>
#include <cmath>

#include "host/strategy/strategies.h"

namespace ktune::host {
namespace {

constexpr size_t kPopulation = 20;
constexpr size_t kGenerations = 100;
constexpr size_t kMutationChance = 10;  // one child in this many
constexpr double kBetaB = 2.5;
constexpr size_t kTriesPerMember = 20;

class Genetic : public StrategyBase {
 public:
  Genetic(const SearchSpace& space, const StrategyOptions& options)
      : StrategyBase(space, options), popsize_(std::min(kPopulation, space.size())) {}

  std::vector<size_t> Ask(size_t max) override {
    if (population_.empty()) {
      population_ = AskWarm(popsize_);
      waiting_ = population_;
      while (population_.size() < popsize_) {
        const size_t p = AskRandom();
        if (p == space_.size()) break;
        population_.push_back(p);
        waiting_.push_back(p);
      }
    }
    // The current generation first; then new ones until one has a point to measure.
    while (waiting_.empty()) {
      if (generation_ + 1 >= kGenerations || !Breed()) return {};
    }
    const size_t n = std::min(max, waiting_.size());
    std::vector<size_t> out(waiting_.begin(), waiting_.begin() + static_cast<long>(n));
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<long>(n));
    return out;
  }

 private:
  size_t Rank() {
    const double x = 1 - std::pow(1 - Uniform(), 1 / kBetaB);
    return std::min(population_.size() - 1, static_cast<size_t>(x * population_.size()));
  }

  // The next generation into population_, its unmeasured members into waiting_; false when there
  // is nothing left to breed from or to ask.
  bool Breed() {
    if (population_.size() < 2) return false;
    // Every member was told: rank by time, infeasible (infinite) last.
    std::stable_sort(population_.begin(), population_.end(),
                     [&](size_t a, size_t b) { return cost(a) < cost(b); });
    std::vector<size_t> next;
    auto add = [&](size_t p) {
      if (p == space_.size() || std::find(next.begin(), next.end(), p) != next.end()) return;
      next.push_back(p);
      if (MarkAsked(p)) waiting_.push_back(p);
    };
    for (size_t tries = 0; next.size() < popsize_ && tries < kTriesPerMember * popsize_; ++tries) {
      const size_t a = Rank();
      size_t b = Rank();
      while (b == a) b = Below(population_.size());
      const Point& pa = space_.point(population_[a]);
      const Point& pb = space_.point(population_[b]);
      Point c1 = pa, c2 = pb;
      for (size_t d = 0; d < c1.size(); ++d) {
        if (Uniform() < 0.5) std::swap(c1[d], c2[d]);
      }
      for (Point* c : {&c1, &c2}) {
        if (Below(kMutationChance) == 0) Mutate(*c);
        if (next.size() < popsize_) add(space_.Find(*c));
      }
    }
    while (next.size() < popsize_) {  // topped up at random
      const size_t p = AskRandom();
      if (p == space_.size()) break;
      next.push_back(p);
      waiting_.push_back(p);
    }
    ++generation_;
    population_ = std::move(next);
    return !population_.empty();
  }

  void Mutate(Point& c) {
    const size_t d = Below(c.size());
    const size_t n = space_.values()[d].size();
    if (n < 2) return;
    const uint32_t v = static_cast<uint32_t>(Below(n - 1));
    c[d] = v >= c[d] ? v + 1 : v;
  }

  const size_t popsize_;
  size_t generation_ = 0;
  std::vector<size_t> population_, waiting_;
};

}  // namespace

std::unique_ptr<Strategy> MakeGenetic(const SearchSpace& space, const StrategyOptions& options) {
  return std::make_unique<Genetic>(space, options);
}

}  // namespace ktune::host
