#include "agent/measure/schedule.h"

#include <random>
#include <utility>

#include "common/random.h"

namespace ktune::agent {
namespace {

// Adds the slot unless it was measured already; the first slot of a variant's pass warms up.
void Add(const ScheduleSpec& spec, uint32_t variant, uint32_t pass, uint32_t repetition,
         std::set<std::pair<uint32_t, uint32_t>>& warmed, std::vector<Slot>& out) {
  if (spec.skip.count({variant, pass, repetition})) return;
  const bool first = warmed.insert({variant, pass}).second;
  out.push_back({variant, pass, repetition, pass == spec.passes, first});
}

void Sequential(const ScheduleSpec& spec, std::set<std::pair<uint32_t, uint32_t>>& warmed,
                std::vector<Slot>& out) {
  for (uint32_t v = 0; v < spec.variants; ++v) {
    for (uint32_t p = 0; p < spec.passes; ++p) {
      for (uint32_t r = 0; r < spec.repetitions; ++r) Add(spec, v, p, r, warmed, out);
    }
    if (spec.sampling) Add(spec, v, spec.passes, 0, warmed, out);
  }
}

void Interleaved(const ScheduleSpec& spec, std::set<std::pair<uint32_t, uint32_t>>& warmed,
                 std::vector<Slot>& out) {
  const uint32_t units = spec.variants * spec.passes;  // (variant, pass), variant-major
  for (uint32_t r = 0; r < spec.repetitions; ++r) {
    for (uint32_t u : RoundOrder(spec.seed, r, units)) {
      Add(spec, u / spec.passes, u % spec.passes, r, warmed, out);
    }
  }
  if (!spec.sampling) return;
  for (uint32_t v : RoundOrder(spec.seed, spec.repetitions, spec.variants)) {
    Add(spec, v, spec.passes, 0, warmed, out);
  }
}

}  // namespace

std::vector<uint32_t> RoundOrder(uint64_t seed, uint32_t round, uint32_t n) {
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  // One generator per round, so that a round's order does not depend on how many draws the
  // rounds before it took (the golden ratio spreads consecutive rounds' seeds apart).
  std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t{round} + 1)));
  for (uint32_t i = n; i > 1; --i) {
    std::swap(order[i - 1], order[UniformBelow(rng, i)]);
  }
  return order;
}

std::vector<Slot> Schedule(const ScheduleSpec& spec) {
  std::vector<Slot> out;
  std::set<std::pair<uint32_t, uint32_t>> warmed;
  if (spec.passes == 0) return out;
  if (spec.order == RunOrder::kSequential) {
    Sequential(spec, warmed, out);
  } else {
    Interleaved(spec, warmed, out);
  }
  return out;
}

}  // namespace ktune::agent
