#include "common/racing.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace ktune {
namespace {

RepetitionRow Row(uint32_t variant, uint32_t round, double kernel_s, bool valid = true) {
  RepetitionRow row;
  row.variant_index = variant;
  row.repetition = round;
  row.valid = valid;
  row.values.push_back({kWallTime, kernel_s * 1e9 + 1e5, "ns", 0, 0, ValueStatus::kOk});
  row.values.push_back({kKernelTime, kernel_s, "s", 0, 0, ValueStatus::kOk});
  return row;
}

// Round r of a variant whose times cycle through `pattern`, scaled by `scale`.
double Time(const std::vector<double>& pattern, uint32_t r, double scale) {
  return scale * pattern[r % pattern.size()];
}

const std::vector<double> kTight = {1.000, 1.002, 0.999, 1.001, 1.003, 0.998, 1.000};
const std::vector<double> kLoose = {1.00, 1.20, 0.85, 1.10, 0.90, 1.15, 0.95, 1.05};

// Runs the race over `scales` (one variant each, times kTight or kLoose scaled) until it is done:
// the rounds each got and why each stopped.
Race RaceOf(const RacingOptions& options,
            const std::vector<std::pair<const std::vector<double>*, double>>& variants) {
  Race race(options, static_cast<uint32_t>(variants.size()));
  for (uint32_t round = 0; !race.done(); ++round) {
    for (uint32_t v = 0; v < variants.size(); ++v) {
      if (race.measuring(v))
        race.Add(Row(v, round, Time(*variants[v].first, round, variants[v].second)));
    }
    race.EndRound(round);
  }
  return race;
}

// The race of these times, times[variant][round], one round after another.
Race RaceOfTable(const std::vector<std::vector<double>>& times) {
  Race race({}, static_cast<uint32_t>(times.size()));
  for (uint32_t round = 0; round < times[0].size(); ++round) {
    for (uint32_t v = 0; v < times.size(); ++v) race.Add(Row(v, round, times[v][round]));
    race.EndRound(round);
  }
  return race;
}

TEST_CASE("racing: a variant's bounds are its range with 4 or 5 values, its interval from 6") {
  CHECK_FALSE(RacingBounds({}).has_value());
  CHECK_FALSE(RacingBounds({1, 2, 3}).has_value());
  CHECK_FALSE(RacingBounds({1, 2, 3, NAN}).has_value());  // three usable values
  auto range = RacingBounds({3, 1, 4, 2});
  REQUIRE(range.has_value());
  CHECK(range->low == 1);
  CHECK(range->high == 4);
  CHECK(range->coverage == 0.875);
  // A value that is not finite counts toward the 6 but is not in the interval.
  CHECK_FALSE(RacingBounds({3, 1, 4, 2, 5, NAN}).has_value());
  range = RacingBounds({3, 1, 4, 2, 5});
  REQUIRE(range.has_value());
  CHECK(range->low == 1);
  CHECK(range->high == 5);
  CHECK(range->coverage == 0.9375);
  // With 9 values the 95% interval is [x(2), x(8)] (coverage 1 - 2 * 10/512 = 96.1%).
  auto ci = RacingBounds({9, 1, 8, 2, 7, 3, 6, 4, 5});
  REQUIRE(ci.has_value());
  CHECK(ci->low == 2);
  CHECK(ci->high == 8);
  CHECK(ci->coverage == doctest::Approx(1 - 20.0 / 512));
}

TEST_CASE("racing: a clearly slower variant stops at min_reps, the runner-up and the best at 6") {
  const Race race = RaceOf({}, {{&kTight, 1.0}, {&kTight, 1.5}, {&kTight, 2.0}});
  // After 4 rounds every time of the slowest (1.998-2.004) is above every one of the best's
  // (0.999-1.002). So are the runner-up's (1.4985-1.503), but it is kept until 6 rounds, when
  // its 95% interval is wholly above the best's. The best, within 0.3% of its median, settles
  // then, once its interval exists and nothing measuring overlaps it.
  CHECK(race.entries()[0].reason == StopReason::kSettled);
  CHECK(race.entries()[0].rounds == 6);
  CHECK(race.entries()[1].reason == StopReason::kSlower);
  CHECK(race.entries()[1].rounds == 6);
  CHECK(race.entries()[2].reason == StopReason::kSlower);
  CHECK(race.entries()[2].rounds == 4);
}

TEST_CASE("racing: with two passes the best and the runner-up still get 6 rounds") {
  // Two values a round: the best's 95% interval exists from round 3 on and the runner-up's range
  // lies above it, but the verdict pairs rounds, not values.
  Race race({}, 2);
  for (uint32_t round = 0; !race.done(); ++round) {
    for (uint32_t v = 0; v < 2; ++v) {
      for (uint32_t pass = 0; pass < 2; ++pass) {
        RepetitionRow row = Row(v, round, Time(kTight, 2 * round + pass, v ? 1.5 : 1.0));
        row.pass = pass;
        race.Add(row);
      }
    }
    race.EndRound(round);
  }
  CHECK(race.entries()[0].reason == StopReason::kSettled);
  CHECK(race.entries()[0].rounds == 6);
  CHECK(race.entries()[1].reason == StopReason::kSlower);
  CHECK(race.entries()[1].rounds == 6);
}

TEST_CASE("racing: the runner-up is the second of the variants still measuring") {
  // Round 4: B (median 2.5) is the runner-up and C, every time above A's, is dropped. Round 5:
  // B's median rises to 3, above the stopped C's 2.8, and B is still the runner-up, kept.
  const Race race = RaceOfTable({{1, 1, 1, 1, 1}, {2, 2, 3, 3, 10}, {2.8, 2.8, 2.8, 2.8, 2.8}});
  CHECK(race.entries()[2].reason == StopReason::kSlower);
  CHECK(race.entries()[2].rounds == 4);
  CHECK(race.entries()[1].reason == StopReason::kMeasuring);
}

TEST_CASE("racing: with 4 values, a variant stops when all its times are above all the best's") {
  const Race race =
      RaceOfTable({{1.00, 1.01, 1.02, 1.03},      // the best
                   {1.031, 1.032, 1.033, 1.034},  // the runner-up (median 1.0325): above, but kept
                   {1.025, 1.05, 1.06, 1.07},     // 1.025 is below the best's 1.03: measuring
                   {1.035, 1.06, 1.07, 1.08}});   // every time above 1.03: slower
  CHECK(race.entries()[0].reason == StopReason::kMeasuring);
  CHECK(race.entries()[1].reason == StopReason::kMeasuring);
  CHECK(race.entries()[2].reason == StopReason::kMeasuring);
  CHECK(race.entries()[3].reason == StopReason::kSlower);
  CHECK(race.entries()[3].rounds == 4);
}

TEST_CASE("racing: nothing stops before min_reps, however clear") {
  RacingOptions options;
  options.min_reps = 10;
  const Race race = RaceOf(options, {{&kTight, 1.0}, {&kTight, 3.0}});
  CHECK(race.entries()[0].rounds == 10);
  CHECK(race.entries()[1].rounds == 10);
  CHECK(race.entries()[1].reason == StopReason::kSlower);
}

TEST_CASE("racing: ties overlap to the cap, and say so") {
  RacingOptions options;
  options.max_reps = 12;
  const Race race = RaceOf(options, {{&kTight, 1.0}, {&kTight, 1.0}, {&kTight, 2.0}});
  CHECK(race.entries()[0].reason == StopReason::kCap);
  CHECK(race.entries()[0].rounds == 12);
  CHECK(race.entries()[1].reason == StopReason::kCap);
  CHECK(race.entries()[2].reason == StopReason::kSlower);
  CHECK(race.entries()[2].rounds == 4);
}

TEST_CASE("racing: a noisy best measures on until its interval is within the target") {
  // kLoose spreads +-20%: with a 2% target the best runs to the cap while the slower one, far
  // off, is dropped at 6 (the runner-up); with a 25% target it settles at 6, when its interval
  // exists.
  RacingOptions options;
  options.max_reps = 20;
  Race race = RaceOf(options, {{&kLoose, 1.0}, {&kTight, 2.0}});
  CHECK(race.entries()[0].reason == StopReason::kCap);
  CHECK(race.entries()[0].rounds == 20);
  CHECK(race.entries()[1].reason == StopReason::kSlower);
  CHECK(race.entries()[1].rounds == 6);
  options.target_ci = 0.25;
  race = RaceOf(options, {{&kLoose, 1.0}, {&kTight, 2.0}});
  CHECK(race.entries()[0].reason == StopReason::kSettled);
  CHECK(race.entries()[0].rounds == 6);
}

TEST_CASE("racing: a failed run stops its variant at once; it is never the best") {
  Race race({}, 2);
  race.Add(Row(0, 0, 0.5, /*valid=*/false));
  race.Add(Row(1, 0, 1.0));
  race.EndRound(0);
  CHECK(race.entries()[0].reason == StopReason::kFailed);
  CHECK(race.entries()[0].rounds == 1);
  CHECK(race.measuring(1));
  for (uint32_t r = 1; race.measuring(1); ++r) {
    race.Add(Row(0, r, 0.1));  // ignored: variant 0 stopped
    race.Add(Row(1, r, Time(kTight, r, 1.0)));
    race.EndRound(r);
  }
  CHECK(race.entries()[0].kernel_s.size() == 1);
  CHECK(race.entries()[1].reason == StopReason::kSettled);
}

TEST_CASE("racing: the wall time decides when a row lacks the kernel's time") {
  Race race({}, 1);
  RepetitionRow row = Row(0, 0, 1.0);
  row.values[1].status = ValueStatus::kMissing;
  race.Add(row);
  race.Add(Row(0, 1, 2.0));
  CHECK(race.times(0) == std::vector<double>{1.0001, 2.0001});
  // Sampling rows do not count.
  RepetitionRow sampled = Row(0, 0, 9.0);
  sampled.sampling = true;
  race.Add(sampled);
  CHECK(race.times(0).size() == 2);
}

TEST_CASE("racing: time up stops the variants still measuring") {
  Race race({}, 2);
  race.Add(Row(0, 0, 1.0));
  race.Add(Row(1, 0, 1.0));
  race.EndRound(0);
  race.StopAll(StopReason::kTime);
  CHECK(race.done());
  CHECK(race.entries()[0].reason == StopReason::kTime);
  CHECK(std::string(StopReasonName(StopReason::kTime)) == "time");
  CHECK(std::string(StopReasonName(StopReason::kSlower)) == "slower");
}

TEST_CASE("racing: replaying stored rows gives the same decisions, and where to go on") {
  // The rows a race of two passes measured: variant 1, the runner-up, dropped after round 5.
  std::vector<RepetitionRow> rows;
  for (uint32_t r = 0; r < 9; ++r) {
    for (uint32_t v = 0; v < 2; ++v) {
      if (v == 1 && r >= 6) continue;
      for (uint32_t pass = 0; pass < 2; ++pass) {
        RepetitionRow row = Row(v, r, Time(kLoose, r + pass, v ? 5.0 : 1.0));
        row.pass = pass;
        rows.push_back(row);
      }
    }
  }
  Replayed replayed = ReplayRace({}, 2, 2, rows);
  CHECK(replayed.next_round == 9);
  CHECK(replayed.race.entries()[0].reason == StopReason::kMeasuring);
  CHECK(replayed.race.entries()[0].rounds == 9);
  CHECK(replayed.race.entries()[1].reason == StopReason::kSlower);
  CHECK(replayed.race.entries()[1].rounds == 6);
  // Round 9 cut short after one pass: its row is in, the round is not ended.
  rows.push_back(Row(0, 9, 1.0));
  replayed = ReplayRace({}, 2, 2, rows);
  CHECK(replayed.next_round == 9);
  CHECK(replayed.race.entries()[0].rounds == 9);
  CHECK(replayed.race.entries()[0].kernel_s.size() == 19);
  // No rows: round 0.
  CHECK(ReplayRace({}, 2, 1, {}).next_round == 0);
}

}  // namespace
}  // namespace ktune
