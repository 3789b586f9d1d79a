// The order in which a run's repetitions are measured. Sequential is every repetition of variant
// 1, pass by pass, then variant 2, and so on: a drift in the machine (a governor, heat, a job that
// starts halfway) lands on whichever variants run at that moment. Interleaved (the default) runs
// the repetitions in rounds: round r measures repetition r of every variant and pass once, in an
// order shuffled by the run's seed (google/benchmark's random interleaving), so a drift spreads
// over all variants alike. Pure functions: a seed gives the same order on every machine, so a
// resumed run (the same request, its rows already measured left out) continues the same rounds.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "common/results.h"

namespace ktune::agent {

enum class RunOrder { kSequential, kInterleaved };

struct ScheduleSpec {
  uint32_t variants = 0;
  uint32_t passes = 1;  // counting passes, each variant measured `repetitions` times in each
  uint32_t repetitions = 1;
  bool sampling = false;  // one more pass (index `passes`) per variant, of one repetition, last
  RunOrder order = RunOrder::kInterleaved;
  uint64_t seed = 0;
  std::set<RowKey> skip = {};  // (variant, pass, repetition) already measured: left out
};

struct Slot {
  uint32_t variant = 0;
  uint32_t pass = 0;
  uint32_t repetition = 0;
  bool sampling = false;  // the sampling pass (pass == spec.passes)
  bool warm_up = false;   // the first slot of its variant and pass: the warm-up runs go first
  bool operator==(const Slot&) const = default;
};

// A permutation of 0..n-1 drawn from (seed, round) by Fisher-Yates through UniformBelow
// (common/random.h): the same on every machine. n == 0 gives an empty order.
std::vector<uint32_t> RoundOrder(uint64_t seed, uint32_t round, uint32_t n);

// (variant, pass) pairs whose warm-up is done (or is the first slot already scheduled).
using Warmed = std::set<std::pair<uint32_t, uint32_t>>;

// Round `round` of an interleaved run: every (variant, counting pass) in RoundOrder(seed, round)
// whose variant `measuring` keeps (every variant when it is empty; adaptive repetitions leave
// stopped variants out), less `skip`. A slot whose (variant, pass) is not yet in `warmed` warms up
// and joins it.
std::vector<Slot> InterleavedRound(const ScheduleSpec& spec, uint32_t round,
                                   const std::vector<bool>& measuring, Warmed& warmed);
// With sampling, the round after the counting rounds: every variant's sampling pass in
// RoundOrder(seed, repetitions), less `skip`. Empty without sampling.
std::vector<Slot> SamplingRound(const ScheduleSpec& spec, Warmed& warmed);

// Every repetition of the run not in `skip`, in measuring order. Interleaved: rounds 0 to
// repetitions-1, each over every (variant, counting pass) in RoundOrder(seed, round); then, with
// sampling, one round of every variant's sampling pass in RoundOrder(seed, repetitions).
// Sequential: variant by variant, its counting passes in order, each pass's repetitions in order,
// then its sampling pass (the order of agentd before interleaving).
std::vector<Slot> Schedule(const ScheduleSpec& spec);

}  // namespace ktune::agent
