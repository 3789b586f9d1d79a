// Simulated annealing as Kernel Tuner's simulated_annealing strategy (version 1.0's defaults:
// T = 1.0, T_min = 0.001, alpha = 0.995, one proposal per temperature step), on one walker:
//
// - It starts at the best point of a warm start (all of them asked first, as one batch), else at
//   a random point. Each step proposes a random neighbour of the current point: a Hamming
//   neighbour one time in five, else a strictly adjacent one (a random point when there is none).
// - The temperature follows the budget: T = T0 * alpha^(max_iter / budget * evaluations), with
//   max_iter = ceil(ln(T_min) / ln(alpha)), so the whole schedule fits the evaluations given.
// - Acceptance on relative cost, as Kernel Tuner's: a better neighbour always, a worse one with
//   probability exp(((old - new) / old) / T), an infeasible one never; from an infeasible point,
//   any.
// - A neighbour already measured costs nothing: the walk goes on through it without asking. After
//   100 such steps in a row (a walker stuck among known points), it restarts at a random point
//   not yet asked.
#include <cmath>
#include <limits>

#include "host/strategy/strategies.h"

namespace ktune::host {
namespace {

constexpr double kT0 = 1.0, kTMin = 0.001, kAlpha = 0.995;
constexpr double kHammingShare = 0.2;
constexpr int kStepsWithoutNew = 100;

class Anneal : public StrategyBase {
 public:
  Anneal(const SearchSpace& space, const StrategyOptions& options)
      : StrategyBase(space, options), max_iter_(std::ceil(std::log(kTMin) / std::log(kAlpha))) {}

  std::vector<size_t> Ask(size_t max) override {
    if (std::vector<size_t> warm = AskWarm(max); !warm.empty()) return warm;
    if (current_ == kNone && BestWarm() < space_.size()) current_ = BestWarm();
    if (current_ == kNone) return Jump();
    for (int step = 0; step < kStepsWithoutNew; ++step) {
      const size_t next = Neighbour();
      if (!asked(next)) {
        MarkAsked(next);
        pending_ = next;
        return {next};
      }
      if (!std::isnan(cost(next))) Consider(next);
    }
    return Jump();
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  // A random point not asked yet becomes the walker's next position.
  std::vector<size_t> Jump() {
    const size_t p = AskRandom();
    if (p == space_.size()) return {};
    pending_ = p;
    jumped_ = true;
    return {p};
  }

  size_t Neighbour() {
    const std::vector<size_t> near = Uniform() < kHammingShare
                                         ? space_.HammingNeighbours(current_)
                                         : space_.AdjacentNeighbours(current_);
    if (near.empty()) return Below(space_.size());
    return near[Below(near.size())];
  }

  double Temperature() const {
    return kT0 * std::pow(kAlpha, max_iter_ / static_cast<double>(budget()) * told());
  }

  // Moves to `next` (measured) as the acceptance rule says.
  void Consider(size_t next) {
    const double old_cost = cost(current_), new_cost = cost(next);
    bool move;
    if (std::isinf(old_cost)) {
      move = true;
    } else if (std::isinf(new_cost)) {
      move = false;
    } else if (new_cost < old_cost) {
      move = true;
    } else {
      move = std::exp(((old_cost - new_cost) / old_cost) / Temperature()) > Uniform();
    }
    if (move) current_ = next;
  }

  void Told(size_t point, std::optional<double> /*time*/) override {
    if (point != pending_) return;
    pending_ = kNone;
    if (jumped_ || current_ == kNone) {
      current_ = point;
      jumped_ = false;
    } else {
      Consider(point);
    }
  }

  const double max_iter_;
  size_t current_ = kNone, pending_ = kNone;
  bool jumped_ = false;
};

}  // namespace

std::unique_ptr<Strategy> MakeAnneal(const SearchSpace& space, const StrategyOptions& options) {
  return std::make_unique<Anneal>(space, options);
}

}  // namespace ktune::host
