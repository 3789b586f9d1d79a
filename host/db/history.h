// khost history's model: a configuration's time, and the best time, run after run on one board at
// one shape, each with what measured and built it (khost's version, the toolchain, the spec's
// hash), and each change beyond the runs' noise flagged: a regression (slower) or an improvement
// when the two runs' 95% intervals of the median do not overlap (the distribution-free intervals
// of common/median.h: a difference they cannot tell apart from noise is not flagged; a run with
// fewer than 6 repetitions has no interval, and its change no verdict). LNT flags regressions
// between runs the same way, by their spread rather than by a fixed percentage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/results.h"

namespace ktune::host {

// One run's result of one configuration (results and runs).
struct HistoryPoint {
  std::string run_id;
  int64_t started_ns = 0;
  std::string ktune_version, toolchain, spec_hash, source_key;
  std::string config, metric;
  double median_ns = 0;
  std::optional<double> ci_low_ns, ci_high_ns;
  int64_t n = 0;
};

enum class Change { kFirst, kSame, kRegression, kImprovement, kNoVerdict };
const char* ChangeName(Change c);  // "first", "same", "regression", "improvement", "no verdict"
// How `cur` compares with `prev` (pure): as above.
Change CompareRuns(const HistoryPoint& prev, const HistoryPoint& cur);

struct HistoryStep {
  HistoryPoint point;
  Change change = Change::kFirst;
  double ratio = 1;  // its median over the previous step's
};

struct History {
  std::string kernel, board, board_source;
  Params shape;
  std::string config;  // the configuration followed: --config, else the newest best
  std::vector<HistoryStep> config_steps;  // its result in each run that measured it
  std::vector<HistoryStep> best_steps;    // each run's fastest configuration
};

// The model from `points` (every ok result at the board and shape, any order) for `config` ("":
// the configuration fastest in the newest run) (pure). One metric (ComparedMetric,
// host/db/tuning_db.h).
History BuildHistory(std::vector<HistoryPoint> points, const std::string& config);

}  // namespace ktune::host
