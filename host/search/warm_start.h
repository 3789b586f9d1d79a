// khost tune --strategy's warm start (issue 35, transfer to a new shape or board): the tuning
// database's best configurations of the kernel, as khost best answers them (host/db/tuning_db.h
// TuningDb::Best: the board searched at the shape searched, else its nearest measured shape, else
// another board), become the points the strategy asks first (host/strategy/strategy.h
// StrategyOptions::warm_start). At the shape itself they are the best of earlier builds (a new
// compiler, a changed source); elsewhere, the configurations a neighbouring shape or board ranks
// first, which on a related landscape sit near the optimum (docs/BENCHMARKS.md, transfer).
//
// At the board and shape searched, every configuration measured recently enough to be reused
// (--reuse-age) comes first, up to the budget: a search repeated after one configuration's source
// changed asks the same configurations, reuses each unchanged one's measurement and measures only
// what changed (docs/BENCHMARKS.md, re-tune).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/db/tuning_db.h"
#include "host/strategy/space.h"

namespace ktune::host {

struct WarmStart {
  std::vector<std::vector<int64_t>> configs;  // in the space's parameter order, first asked first
  std::string about;                          // what they are and where from, or why there are none
  // How many of configs, from the front, were measured at a shape searched on this board; the
  // others at another shape or on another board (host/strategy/strategy.h warm_here).
  size_t here = 0;
};

struct WarmStartLimits {
  size_t count = 5;  // the best configurations, from any answer (--warm-start)
  // Before those, up to this many measured at the board and shape searched ("same board and
  // shape") at or after reusable_since_ns: the ones a repeated search can reuse. 0: none.
  size_t reusable = 0;
  int64_t reusable_since_ns = 0;
};

// The warm start from khost best's answers, one per shape searched (pure): first up to
// `limits.reusable` configurations the same-board-and-shape answers measured recently enough,
// then `limits.count` more, the answers' entries taken in turn (fastest first in each); an entry
// whose configuration the space lacks (another shape's constraints, another spec) is skipped.
// Those from a same-board-and-shape answer come first (`here` of them), in the order taken.
WarmStart WarmStartOf(const SearchSpace& space, const std::vector<BestAnswer>& answers,
                      const WarmStartLimits& limits);

// Asks the database `db` (opened, not made) for the kernel's best at each of `shapes` on `board`
// (a CPU fingerprint), enough at each for both limits; no database, one that fails, or no record
// is a warm start of no configuration whose `about` says why.
WarmStart FindWarmStart(const std::optional<DbChoice>& db, const std::string& kernel,
                        const std::string& board, const std::vector<Params>& shapes,
                        const SearchSpace& space, const WarmStartLimits& limits);

}  // namespace ktune::host
