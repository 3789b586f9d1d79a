// Adaptive repetitions (khost run --reps auto): the variants are measured in rounds, and after
// each round this rule decides which variants need more. Racing, as F-race and irace drop
// configurations: a variant whose bounds lie wholly above the best variant's is clearly slower
// and stops; one that still overlaps the best goes on. A variant's bounds are its 95% interval
// of the median (common/median.h) once it has the 6 values that needs; with 4 or 5 values they
// are its [min, max], so that a variant is dropped that early only when every one of its times
// is above every one of the best's: Mann-Whitney's U = 0, one-sided p = 1/70 at 4 against 4 and
// 1/252 at 5 against 5 (3 against 3 would be 1/20, not below 0.05). The runner-up (the second
// lowest median among the variants still measuring) and the best stop no sooner than
// kRunnerUpRounds: khost analyze's verdict compares the two, and when the times drifted it pairs
// their rounds, which takes 6 (a sign test of 6 of 6 gives p = 1/32 two-sided, 5 of 5 only 1/16).
// Best effort: a variant dropped earlier can still rank second in analyze when the runner-up's
// median later rises above its own. The best (the lowest median) is settled once its 95%
// interval is within the target of its median and no variant still measuring overlaps it. A
// variant with an invalid run stops as failed; the rest stop at the cap of rounds, or when the
// run's time is up. A variant stops only after min_reps rounds (at least kMinRacingReps). agentd
// races a run as it measures it; khost replays the same rule over the stored rows to say why each
// variant stopped, so both sides share this one definition. Pure: the same rows give the same
// decisions.
//
// Time is the kernel's own time when every row so far printed it, else the wall time (as khost's
// reports rank). A variant's values are its counting rows of every pass; sampling rows are left
// out. Edge cases: a variant with no usable time is never the best and never settles (it runs to
// the cap); variants the data cannot separate (ties) overlap to the cap, and say so.
#pragma once

#include <cstdint>
#include <vector>

#include "common/median.h"
#include "common/results.h"

namespace ktune {

// The fewest values by which a variant can be told slower than another at p < 0.05 (above).
constexpr uint32_t kMinRacingReps = 4;

// The rounds the runner-up gets at least (above).
constexpr uint32_t kRunnerUpRounds = 6;

// A variant's bounds in the race (above): its 95% interval of the median from 6 values, its
// [min, max] with kMinRacingReps or 5 (coverage 87.5% or 93.75%), nullopt with fewer. Values that
// are not finite count here but not in the interval (a 6th that is NaN leaves no bounds).
std::optional<Interval> RacingBounds(const std::vector<double>& values);

struct RacingOptions {
  uint32_t min_reps = kMinRacingReps;  // rounds before a variant may stop (>= kMinRacingReps)
  uint32_t max_reps = 30;              // rounds at most
  double target_ci = 0.02;  // settled when the interval's wider side is within this of the median
};

enum class StopReason { kMeasuring, kSettled, kSlower, kFailed, kCap, kTime };
// "measuring", "settled", "slower", "failed", "cap", "time"
const char* StopReasonName(StopReason reason);

class Race {
 public:
  struct Entry {
    StopReason reason = StopReason::kMeasuring;
    uint32_t rounds = 0;  // rounds ended while it was measuring
    bool failed = false;  // a run of it was invalid
    std::vector<double> kernel_s, wall_s;
  };

  Race(RacingOptions options, uint32_t variants);

  // A counting row of a variant still measuring; sampling rows, rows of stopped variants and of
  // variants out of range are ignored.
  void Add(const RepetitionRow& row);
  // Ends round `round` (0-based): each measuring variant gets a round, and the rule above stops
  // those it can; at round max_reps - 1 the rest stop at the cap.
  void EndRound(uint32_t round);
  // Stops every variant still measuring, for `reason` (kTime).
  void StopAll(StopReason reason);

  bool measuring(uint32_t variant) const;
  bool done() const;  // no variant measuring
  const std::vector<Entry>& entries() const { return entries_; }
  // The values the rule compares: kernel_s when every row had it, else wall_s.
  const std::vector<double>& times(uint32_t variant) const;

 private:
  StopReason Decide(uint32_t v, const std::vector<std::optional<Interval>>& bounds,
                    std::optional<uint32_t> best, std::optional<uint32_t> runner_up) const;
  RacingOptions options_;
  std::vector<Entry> entries_;
  bool every_row_has_kernel_time_ = true;
};

// The race a run's stored rows tell, round by round (a row's repetition is its round): every
// round that each variant measuring then completed (a row for each of `passes`) is ended; a
// round left incomplete has its rows added and is `next_round`, where measuring goes on.
struct Replayed {
  Race race;
  uint32_t next_round = 0;
};
Replayed ReplayRace(const RacingOptions& options, uint32_t variants, uint32_t passes,
                    const std::vector<RepetitionRow>& rows);

}  // namespace ktune
