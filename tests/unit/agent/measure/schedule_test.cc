#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "agent/measure/schedule.h"

namespace ktune::agent {
namespace {

using Key = std::tuple<uint32_t, uint32_t, uint32_t>;

Key KeyOfSlot(const Slot& s) {
  return {s.variant, s.pass, s.repetition};
}

std::vector<Key> Keys(const std::vector<Slot>& slots) {
  std::vector<Key> out;
  for (const Slot& s : slots) out.push_back(KeyOfSlot(s));
  return out;
}

TEST_CASE("RoundOrder: a permutation, the same for the same seed and round, pinned") {
  CHECK(RoundOrder(7, 0, 0).empty());
  CHECK(RoundOrder(7, 3, 1) == std::vector<uint32_t>{0});
  for (uint32_t n : {2u, 5u, 16u, 100u}) {
    for (uint32_t round = 0; round < 20; ++round) {
      std::vector<uint32_t> order = RoundOrder(42, round, n);
      CHECK(order == RoundOrder(42, round, n));
      std::sort(order.begin(), order.end());
      for (uint32_t i = 0; i < n; ++i) CHECK(order[i] == i);
    }
  }
  // Fixed by mt19937_64's outputs (set by the C++ standard) and UniformBelow: every machine
  // and every build draws these.
  CHECK(RoundOrder(42, 0, 6) == std::vector<uint32_t>{5, 1, 3, 0, 4, 2});
  CHECK(RoundOrder(42, 0, 8) == std::vector<uint32_t>{1, 5, 6, 7, 3, 2, 0, 4});
  CHECK(RoundOrder(42, 0, 8) != RoundOrder(42, 1, 8));
  CHECK(RoundOrder(42, 0, 8) != RoundOrder(43, 0, 8));
}

TEST_CASE("RoundOrder: every variant in every position about equally often") {
  // 3 variants over 30,000 rounds: each position holds each variant 10,000 times in
  // expectation (sd about 82); a biased shuffle (e.g. swapping with any index) is off by
  // thousands.
  std::map<std::pair<uint32_t, uint32_t>, int> count;
  for (uint32_t round = 0; round < 30000; ++round) {
    const std::vector<uint32_t> order = RoundOrder(1, round, 3);
    for (uint32_t pos = 0; pos < 3; ++pos) ++count[{pos, order[pos]}];
  }
  for (const auto& [where, n] : count) {
    CHECK(n > 9500);
    CHECK(n < 10500);
  }
}

TEST_CASE("sequential: variant by variant, pass by pass, as agentd measured before rounds") {
  ScheduleSpec spec{.variants = 2,
                    .passes = 2,
                    .repetitions = 2,
                    .sampling = true,
                    .order = RunOrder::kSequential,
                    .seed = 9};
  const std::vector<Slot> slots = Schedule(spec);
  const std::vector<Key> want = {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {0, 2, 0},
                                 {1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}, {1, 2, 0}};
  CHECK(Keys(slots) == want);
  for (const Slot& s : slots) {
    CHECK(s.warm_up == (s.repetition == 0));  // each pass warms up before its first repetition
    CHECK(s.sampling == (s.pass == 2));
  }
}

TEST_CASE("interleaved: round r holds repetition r of every variant and pass once; sampling last") {
  ScheduleSpec spec{.variants = 5, .passes = 2, .repetitions = 4, .sampling = true, .seed = 3};
  const std::vector<Slot> slots = Schedule(spec);
  REQUIRE(slots.size() == 5 * 2 * 4 + 5);
  for (uint32_t round = 0; round < 4; ++round) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (size_t i = round * 10; i < round * 10 + 10; ++i) {
      CHECK(slots[i].repetition == round);
      CHECK_FALSE(slots[i].sampling);
      CHECK(seen.insert({slots[i].variant, slots[i].pass}).second);
      CHECK(slots[i].warm_up == (round == 0));
    }
  }
  std::set<uint32_t> sampled;
  for (size_t i = 40; i < slots.size(); ++i) {
    CHECK(slots[i].sampling);
    CHECK(slots[i].pass == 2);
    CHECK(slots[i].repetition == 0);
    CHECK(slots[i].warm_up);
    sampled.insert(slots[i].variant);
  }
  CHECK(sampled.size() == 5);
  // Round 1's order is RoundOrder(seed, 1) over (variant, pass), variant-major.
  const std::vector<uint32_t> order = RoundOrder(3, 1, 10);
  for (size_t i = 0; i < 10; ++i) {
    CHECK(slots[10 + i].variant == order[i] / 2);
    CHECK(slots[10 + i].pass == order[i] % 2);
  }
  // The rounds are not all in one order (which would let a drift favour the first variant).
  CHECK(Keys({slots.begin(), slots.begin() + 10}) !=
        Keys({slots.begin() + 10, slots.begin() + 20}));
}

TEST_CASE("a resumed run continues the same rounds: the measured rows are left out, in order") {
  for (RunOrder order : {RunOrder::kInterleaved, RunOrder::kSequential}) {
    ScheduleSpec spec{
        .variants = 4, .passes = 1, .repetitions = 5, .sampling = true, .order = order, .seed = 11};
    const std::vector<Slot> full = Schedule(spec);
    // The run stopped after its first 9 repetitions.
    for (size_t i = 0; i < 9; ++i) spec.skip.insert(KeyOfSlot(full[i]));
    const std::vector<Slot> rest = Schedule(spec);
    REQUIRE(rest.size() == full.size() - 9);
    for (size_t i = 0; i < rest.size(); ++i) CHECK(KeyOfSlot(rest[i]) == KeyOfSlot(full[9 + i]));
    // After a resume each variant's pass warms up again before its first repetition left
    // (the machine may have rebooted since), as agentd did before rounds; a pass measured whole
    // is not in the schedule at all.
    for (const Slot& s : rest) {
      const bool first_in_rest = &s == &*std::find_if(rest.begin(), rest.end(), [&](const Slot& f) {
        return f.variant == s.variant && f.pass == s.pass;
      });
      CHECK(s.warm_up == first_in_rest);
    }
  }
}

TEST_CASE("edge cases: no variants, every row measured, one repetition") {
  CHECK(Schedule({.variants = 0, .repetitions = 3}).empty());
  ScheduleSpec all{.variants = 2, .passes = 1, .repetitions = 1, .seed = 5};
  all.skip = {{0, 0, 0}, {1, 0, 0}};
  CHECK(Schedule(all).empty());
  const std::vector<Slot> one = Schedule({.variants = 3, .passes = 1, .repetitions = 1, .seed = 5});
  REQUIRE(one.size() == 3);
  for (const Slot& s : one) CHECK(s.warm_up);
}

}  // namespace
}  // namespace ktune::agent
