#include "host/strategy/strategy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/random.h"
#include "host/strategy/strategies.h"

namespace ktune::host {
namespace {

// grid: the space's own order.
class GridStrategy : public StrategyBase {
 public:
  using StrategyBase::StrategyBase;
  std::vector<size_t> Ask(size_t max) override {
    std::vector<size_t> out = AskWarm(max);
    for (; next_ < space_.size() && out.size() < max; ++next_) {
      if (MarkAsked(next_)) out.push_back(next_);
    }
    return out;
  }

 private:
  size_t next_ = 0;
};

// random: a uniform draw without replacement, one point at a time.
class RandomStrategy : public StrategyBase {
 public:
  using StrategyBase::StrategyBase;
  std::vector<size_t> Ask(size_t max) override {
    std::vector<size_t> out = AskWarm(max);
    while (out.size() < max) {
      const size_t p = AskRandom();
      if (p == space_.size()) break;
      out.push_back(p);
    }
    return out;
  }
};

}  // namespace

const char* StrategyName(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kGrid:
      return "grid";
    case StrategyKind::kRandom:
      return "random";
    case StrategyKind::kAnneal:
      return "anneal";
    case StrategyKind::kGenetic:
      return "genetic";
    case StrategyKind::kBayes:
      return "bayes";
  }
  return "?";
}

Result<StrategyKind> ParseStrategy(std::string_view name) {
  for (StrategyKind k : {StrategyKind::kGrid, StrategyKind::kRandom, StrategyKind::kAnneal,
                         StrategyKind::kGenetic, StrategyKind::kBayes}) {
    if (name == StrategyName(k)) return k;
  }
  return InvalidArgument("unknown strategy '" + std::string(name) +
                         "' (grid, random, anneal, genetic, bayes)");
}

std::unique_ptr<Strategy> MakeStrategy(StrategyKind kind, const SearchSpace& space,
                                       const StrategyOptions& options) {
  switch (kind) {
    case StrategyKind::kGrid:
      return std::make_unique<GridStrategy>(space, options);
    case StrategyKind::kRandom:
      return std::make_unique<RandomStrategy>(space, options);
    case StrategyKind::kAnneal:
      return MakeAnneal(space, options);
    case StrategyKind::kGenetic:
      return MakeGenetic(space, options);
    case StrategyKind::kBayes:
      return MakeBayes(space, options);
  }
  return nullptr;
}

std::vector<size_t> WarmStartPoints(const SearchSpace& space,
                                    const std::vector<std::vector<int64_t>>& ranked, size_t count) {
  std::vector<size_t> out;
  for (const std::vector<int64_t>& c : ranked) {
    if (out.size() >= count) break;
    const size_t p = space.FindConfig(c);
    if (p < space.size() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

void SetWarmStart(StrategyOptions& options, const SearchSpace& space,
                  const std::vector<std::vector<int64_t>>& configs, size_t here) {
  const std::vector<std::vector<int64_t>> first(
      configs.begin(), configs.begin() + static_cast<long>(std::min(here, configs.size())));
  options.warm_start = WarmStartPoints(space, configs, space.size());
  options.warm_here = WarmStartPoints(space, first, space.size()).size();
}

StrategyBase::StrategyBase(const SearchSpace& space, const StrategyOptions& options)
    : space_(space),
      options_(options),
      rng_(options.seed),
      asked_(space.size(), false),
      cost_(space.size(), std::numeric_limits<double>::quiet_NaN()) {}

void StrategyBase::Tell(size_t point, std::optional<double> time) {
  if (point >= space_.size() || !asked_[point] || !std::isnan(cost_[point])) return;
  const bool feasible = time && std::isfinite(*time);
  cost_[point] = feasible ? *time : std::numeric_limits<double>::infinity();
  ++told_;
  Told(point, feasible ? time : std::nullopt);
}

bool StrategyBase::MarkAsked(size_t point) {
  if (asked_[point]) return false;
  asked_[point] = true;
  ++asked_count_;
  return true;
}

size_t StrategyBase::budget() const {
  return options_.budget ? options_.budget : space_.size();
}

size_t StrategyBase::Below(size_t n) {
  return static_cast<size_t>(UniformBelow(rng_, n));
}

double StrategyBase::Uniform() {
  return UniformUnit(rng_);
}

size_t StrategyBase::AskRandom() {
  const size_t left = space_.size() - asked_count_;
  if (left == 0) return space_.size();
  size_t p = 0;
  if (2 * left >= space_.size()) {
    // Most points are unasked: draw until one of them comes up.
    do p = Below(space_.size());
    while (asked_[p]);
  } else {
    // Pick among the unasked ones.
    size_t k = Below(left);
    while (asked_[p] || k-- > 0) ++p;
  }
  MarkAsked(p);
  return p;
}

std::vector<size_t> StrategyBase::AskWarm(size_t max) {
  std::vector<size_t> out;
  const std::vector<size_t>& warm = options_.warm_start;
  for (; warm_next_ < warm.size() && out.size() < max; ++warm_next_) {
    const size_t p = warm[warm_next_];
    if (p < space_.size() && MarkAsked(p)) out.push_back(p);
  }
  return out;
}

size_t StrategyBase::BestWarm() const {
  size_t best = space_.size();
  for (size_t p : options_.warm_start) {
    if (p >= space_.size() || !std::isfinite(cost_[p])) continue;
    if (best == space_.size() || cost_[p] < cost_[best]) best = p;
  }
  return best;
}

bool StrategyBase::Transferred(size_t point) const {
  const std::vector<size_t>& warm = options_.warm_start;
  const auto here_end = warm.begin() + static_cast<long>(std::min(options_.warm_here, warm.size()));
  return std::find(warm.begin(), here_end, point) == here_end &&
         std::find(here_end, warm.end(), point) != warm.end();
}

}  // namespace ktune::host
