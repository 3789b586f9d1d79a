// Search strategies: which configurations of a space (host/strategy/space.h) to measure next,
// from what the measured ones gave, so that a search finds the fastest configuration measuring a
// fraction of the space. Ask/tell: the driver (khost tune --strategy, the replay benchmark) asks
// for a batch, evaluates it, tells every result, then asks again; a strategy never asks for a
// configuration twice, and an empty batch means it has nothing more to try. A result is the
// configuration's time (lower is better) or infeasible (it did not build, printed NOT OK, crashed
// or timed out): strategies never move to an infeasible configuration and the models leave it out.
//
//   grid     every configuration, in the space's order (today's full sweep)
//   random   every configuration, in a seeded random order (today's --sample, drawn lazily)
//   anneal   simulated annealing, Kernel Tuner's (host/strategy/anneal.cc)
//   genetic  a genetic algorithm, Kernel Tuner's (host/strategy/genetic.cc)
//   bayes    Bayesian optimization: a Gaussian process, expected improvement over the feasible
//            configurations not yet measured (host/strategy/bayes.cc)
//
// A warm start (StrategyOptions::warm_start: the best configurations measured at another shape or
// on another board, khost tune's transfer from the tuning database) is asked first, in its order,
// and each strategy starts from what it gave: grid and random go on in their own order, bayes
// counts the points measured at this shape in its first sample (fewer random ones) and asks the
// others besides, out of its model, anneal starts its walk at the best warm point, genetic makes
// the warm points its first generation's first members.
//
// Pure and deterministic: the same space, options and results give the same asks, on every
// machine (draws through common/random.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "host/strategy/space.h"

namespace ktune::host {

enum class StrategyKind { kGrid, kRandom, kAnneal, kGenetic, kBayes };
// "grid", "random", "anneal", "genetic", "bayes"
const char* StrategyName(StrategyKind kind);
Result<StrategyKind> ParseStrategy(std::string_view name);

struct StrategyOptions {
  uint64_t seed = 0;
  // The evaluations the search may spend (0: the whole space): anneal fits its cooling schedule
  // to it, bayes its first random samples.
  size_t budget = 0;
  // Points to ask first, most promising first (the warm start above); a point out of the space or
  // given twice is asked once or not at all.
  std::vector<size_t> warm_start = {};
  // How many of warm_start, from its front, were measured at the shape searched on this board
  // (earlier builds, or measurements a repeated search reuses): data of this landscape. The rest
  // were measured at another shape or on another board: bayes asks them in addition to its
  // random draws and leaves them out of its model.
  size_t warm_here = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Up to `max` (>= 1) points to evaluate next, none asked before; empty when done.
  virtual std::vector<size_t> Ask(size_t max) = 0;
  // The result of an asked point: its time, or nullopt when it is infeasible.
  virtual void Tell(size_t point, std::optional<double> time) = 0;
};

// A warm start (pure): the points of `space` that hold the configurations `ranked` (their values,
// most promising first), in that order, at most `count`; a configuration the space lacks (another
// shape's constraints took it) is skipped.
std::vector<size_t> WarmStartPoints(const SearchSpace& space,
                                    const std::vector<std::vector<int64_t>>& ranked, size_t count);

// Sets `options`' warm start (pure): the points of `configs` as WarmStartPoints maps them, all of
// them, and warm_here to how many of them the first `here` configurations gave.
void SetWarmStart(StrategyOptions& options, const SearchSpace& space,
                  const std::vector<std::vector<int64_t>>& configs, size_t here);

std::unique_ptr<Strategy> MakeStrategy(StrategyKind kind, const SearchSpace& space,
                                       const StrategyOptions& options);

// What the strategies share: what was asked and told, and seeded draws.
class StrategyBase : public Strategy {
 public:
  StrategyBase(const SearchSpace& space, const StrategyOptions& options);
  void Tell(size_t point, std::optional<double> time) override;

 protected:
  // Called by Tell once the result is kept.
  virtual void Told(size_t /*point*/, std::optional<double> /*time*/) {}
  bool asked(size_t point) const { return asked_[point]; }
  // Marks `point` asked; false when it was already.
  bool MarkAsked(size_t point);
  // The result told of `point`: +infinity for an infeasible one, NaN while not told.
  double cost(size_t point) const { return cost_[point]; }
  size_t told() const { return told_; }
  size_t asked_count() const { return asked_count_; }
  size_t budget() const;  // options.budget, or the space's size
  // A uniform index below `n` (> 0), and a uniform double in [0, 1).
  size_t Below(size_t n);
  double Uniform();
  // A point not asked yet, drawn uniformly and marked asked; size() of the space when every point
  // was asked.
  size_t AskRandom();
  // The warm start's next points not asked yet, at most `max`, marked asked.
  std::vector<size_t> AskWarm(size_t max);
  // The fastest warm-start point told feasible; size() of the space when there is none.
  size_t BestWarm() const;
  // Whether `point` is one of the warm start's points from another shape or board.
  bool Transferred(size_t point) const;

  const SearchSpace& space_;
  StrategyOptions options_;

 private:
  std::mt19937_64 rng_;
  std::vector<bool> asked_;
  std::vector<double> cost_;
  size_t told_ = 0, asked_count_ = 0;
  size_t warm_next_ = 0;  // into options_.warm_start
};

}  // namespace ktune::host
