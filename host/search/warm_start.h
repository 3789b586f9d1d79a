// khost tune --strategy's warm start (issue 35, transfer to a new shape or board): the tuning
// database's best configurations of the kernel, as khost best answers them (host/db/tuning_db.h
// TuningDb::Best: the board searched at the shape searched, else its nearest measured shape, else
// another board), become the points the strategy asks first (host/strategy/strategy.h
// StrategyOptions::warm_start). At the shape itself they are the best of earlier builds (a new
// compiler, a changed source); elsewhere, the configurations a neighbouring shape or board ranks
// first, which on a related landscape sit near the optimum (docs/BENCHMARKS.md, transfer).
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
};

// The warm start from khost best's answers, one per shape searched (pure): the first `count`
// configurations of the space, taking the answers' entries in turn (fastest first in each); an
// entry whose configuration the space lacks (another shape's constraints, another spec) is
// skipped.
WarmStart WarmStartOf(const SearchSpace& space, const std::vector<BestAnswer>& answers,
                      size_t count);

// Asks the database `db` (opened, not made) for the kernel's best at each of `shapes` on `board`
// (a CPU fingerprint), top 4 * count at each; no database, one that fails, or no record is a
// warm start of no configuration whose `about` says why.
WarmStart FindWarmStart(const std::optional<DbChoice>& db, const std::string& kernel,
                        const std::string& board, const std::vector<Params>& shapes,
                        const SearchSpace& space, size_t count);

}  // namespace ktune::host
