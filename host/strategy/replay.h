// A search replayed on a landscape: every configuration's time known in advance (a full-grid
// measurement, or a function for tests), the strategy asked and told as khost tune --strategy
// asks and tells, without measuring anything. For the search benchmark (bench/search_replay.cc)
// and the strategies' tests. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/strategy/space.h"
#include "host/strategy/strategy.h"

namespace ktune::host {

struct Landscape {
  SearchSpace space;
  std::vector<std::optional<double>> time;  // per point of the space; nullopt: infeasible
  // The lowest time; nullopt when every point is infeasible.
  std::optional<double> optimum() const;
};

struct Trace {
  std::vector<size_t> evaluated;    // the points, in the order they were asked
  std::vector<double> best_so_far;  // after each evaluation; +infinity before a feasible one
};

// A measured configuration: its parameters' values and its time (nullopt: infeasible).
struct Measured {
  std::vector<int64_t> config;
  std::optional<double> time_ns;
};

// The landscape of measured configurations (a search's evaluations file, host/results/
// evaluations.h): each parameter's values are those the configurations hold, ascending; the
// points are the configurations, in the order given. A configuration given twice is an error.
Result<Landscape> LandscapeOf(const std::vector<std::string>& names,
                              const std::vector<Measured>& measured);

// Asks in batches of `batch` until the strategy is done or `max_evaluations` were made.
Trace Replay(StrategyKind kind, const Landscape& landscape, const StrategyOptions& options,
             size_t batch, size_t max_evaluations);

// The evaluations (1-based) after which the best so far is within `within` (0.02: 2%) of
// `optimum`; nullopt when the trace never gets there.
std::optional<size_t> EvaluationsToReach(const Trace& trace, double optimum, double within);

}  // namespace ktune::host
