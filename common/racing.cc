#include "common/racing.h"

#include <algorithm>
#include <map>

namespace ktune {
namespace {

constexpr double kRangeCoverage = 0.875;  // of [min, max] with kMinRacingReps values

}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kMeasuring:
      return "measuring";
    case StopReason::kSettled:
      return "settled";
    case StopReason::kSlower:
      return "slower";
    case StopReason::kFailed:
      return "failed";
    case StopReason::kCap:
      return "cap";
    case StopReason::kTime:
      return "time";
  }
  return "?";
}

std::optional<Interval> RacingBounds(const std::vector<double>& values) {
  // [min, max] covers the median with probability 1 - 2 * 0.5^n: 87.5% for 4 values, 93.75% for
  // 5, so an interval at 87.5% is that range (common/median.h).
  return MedianConfidenceInterval(values, values.size() < 6 ? kRangeCoverage : 0.95);
}

Race::Race(RacingOptions options, uint32_t variants) : options_(options), entries_(variants) {}

bool Race::measuring(uint32_t variant) const {
  return variant < entries_.size() && entries_[variant].reason == StopReason::kMeasuring;
}

bool Race::done() const {
  for (uint32_t v = 0; v < entries_.size(); ++v) {
    if (measuring(v)) return false;
  }
  return true;
}

const std::vector<double>& Race::times(uint32_t variant) const {
  const Entry& e = entries_[variant];
  return every_row_has_kernel_time_ ? e.kernel_s : e.wall_s;
}

void Race::Add(const RepetitionRow& row) {
  if (row.sampling || !measuring(row.variant_index)) return;
  Entry& e = entries_[row.variant_index];
  if (!row.valid) e.failed = true;
  const MeasuredValue* kernel = row.Find(kKernelTime);
  const MeasuredValue* wall = row.Find(kWallTime);
  if (kernel && Usable(kernel->status)) {
    e.kernel_s.push_back(kernel->value);
  } else {
    every_row_has_kernel_time_ = false;
  }
  if (wall && Usable(wall->status)) e.wall_s.push_back(wall->value * 1e-9);
}

StopReason Race::Decide(uint32_t v, const std::vector<std::optional<Interval>>& bounds,
                        std::optional<uint32_t> best, std::optional<uint32_t> runner_up) const {
  const Entry& e = entries_[v];
  if (e.failed) return StopReason::kFailed;
  if (e.rounds < options_.min_reps || !bounds[v] || !best) return StopReason::kMeasuring;
  const Interval& top = *bounds[*best];
  if (v != *best) {
    // The runner-up gets the rounds the verdict's paired test needs (racing.h).
    if (v == runner_up && e.rounds < kRunnerUpRounds) return StopReason::kMeasuring;
    return bounds[v]->low > top.high ? StopReason::kSlower : StopReason::kMeasuring;
  }
  // The best settles on its 95% interval (its bounds from 6 values), not on a range of fewer
  // values, and not before the rounds the verdict's paired test needs (with several passes the
  // interval comes sooner).
  if (top.coverage < 0.95 || e.rounds < kRunnerUpRounds) return StopReason::kMeasuring;
  const double median = *Median(times(v));
  const double wider = std::max(median - top.low, top.high - median);
  if (median <= 0 || wider > options_.target_ci * median) return StopReason::kMeasuring;
  // The best settles when no other variant still measuring overlaps it.
  for (uint32_t w = 0; w < entries_.size(); ++w) {
    if (w == v || !measuring(w) || entries_[w].failed || !bounds[w]) continue;
    if (bounds[w]->low <= top.high) return StopReason::kMeasuring;
  }
  return StopReason::kSettled;
}

void Race::EndRound(uint32_t round) {
  std::vector<std::optional<Interval>> bounds(entries_.size());
  // The lowest median of the variants with bounds, and the second lowest of those still
  // measuring (the lower index first on equal medians).
  std::optional<uint32_t> best, runner_up;
  double best_median = 0, runner_up_median = 0;
  for (uint32_t v = 0; v < entries_.size(); ++v) {
    if (measuring(v)) ++entries_[v].rounds;
    if (entries_[v].failed) continue;
    bounds[v] = RacingBounds(times(v));
    if (!bounds[v]) continue;
    const double median = *Median(times(v));
    if (!best || median < best_median) {
      if (best && measuring(*best)) {
        runner_up = best;
        runner_up_median = best_median;
      }
      best = v;
      best_median = median;
    } else if (measuring(v) && (!runner_up || median < runner_up_median)) {
      runner_up = v;
      runner_up_median = median;
    }
  }
  std::vector<StopReason> decided(entries_.size(), StopReason::kMeasuring);
  for (uint32_t v = 0; v < entries_.size(); ++v) {
    if (measuring(v)) decided[v] = Decide(v, bounds, best, runner_up);
  }
  for (uint32_t v = 0; v < entries_.size(); ++v) {
    if (!measuring(v)) continue;
    entries_[v].reason = decided[v];
    if (decided[v] == StopReason::kMeasuring && round + 1 >= options_.max_reps) {
      entries_[v].reason = StopReason::kCap;
    }
  }
}

void Race::StopAll(StopReason reason) {
  for (Entry& e : entries_) {
    if (e.reason == StopReason::kMeasuring) e.reason = reason;
  }
}

Replayed ReplayRace(const RacingOptions& options, uint32_t variants, uint32_t passes,
                    const std::vector<RepetitionRow>& rows) {
  std::map<uint32_t, std::vector<const RepetitionRow*>> by_round;
  for (const RepetitionRow& row : rows) {
    if (!row.sampling) by_round[row.repetition].push_back(&row);
  }
  Replayed out{Race(options, variants), 0};
  for (uint32_t round = 0; !out.race.done(); ++round) {
    out.next_round = round;
    auto it = by_round.find(round);
    if (it == by_round.end()) break;
    std::vector<uint32_t> rows_of(variants, 0);
    for (const RepetitionRow* row : it->second) {
      if (!out.race.measuring(row->variant_index)) continue;
      out.race.Add(*row);
      ++rows_of[row->variant_index];
    }
    for (uint32_t v = 0; v < variants; ++v) {
      if (out.race.measuring(v) && rows_of[v] < passes) return out;
    }
    out.race.EndRound(round);
    out.next_round = round + 1;
  }
  return out;
}

}  // namespace ktune
