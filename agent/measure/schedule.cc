#include "agent/measure/schedule.h"

#include <random>
#include <utility>

#include "common/random.h"

namespace ktune::agent {
namespace {

// Adds the slot unless it was measured already; the first slot of a variant's pass warms up.
void Add(const ScheduleSpec& spec, uint32_t variant, uint32_t pass, uint32_t repetition,
         Warmed& warmed, std::vector<Slot>& out) {
  if (spec.skip.count({variant, pass, repetition})) return;
  const bool first = warmed.insert({variant, pass}).second;
  out.push_back({variant, pass, repetition, pass == spec.passes, first});
}

void Sequential(const ScheduleSpec& spec, Warmed& warmed, std::vector<Slot>& out) {
  for (uint32_t v = 0; v < spec.variants; ++v) {
    for (uint32_t p = 0; p < spec.passes; ++p) {
      for (uint32_t r = 0; r < spec.repetitions; ++r) Add(spec, v, p, r, warmed, out);
    }
    if (spec.sampling) Add(spec, v, spec.passes, 0, warmed, out);
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

std::vector<Slot> InterleavedRound(const ScheduleSpec& spec, uint32_t round,
                                   const std::vector<bool>& measuring, Warmed& warmed) {
  std::vector<Slot> out;
  if (spec.passes == 0) return out;
  const uint32_t units = spec.variants * spec.passes;  // (variant, pass), variant-major
  for (uint32_t u : RoundOrder(spec.seed, round, units)) {
    const uint32_t v = u / spec.passes;
    if (measuring.empty() || measuring[v]) Add(spec, v, u % spec.passes, round, warmed, out);
  }
  return out;
}

std::vector<Slot> SamplingRound(const ScheduleSpec& spec, Warmed& warmed) {
  std::vector<Slot> out;
  if (!spec.sampling) return out;
  for (uint32_t v : RoundOrder(spec.seed, spec.repetitions, spec.variants)) {
    Add(spec, v, spec.passes, 0, warmed, out);
  }
  return out;
}

std::vector<Slot> Schedule(const ScheduleSpec& spec) {
  std::vector<Slot> out;
  Warmed warmed;
  if (spec.passes == 0) return out;
  if (spec.order == RunOrder::kSequential) {
    Sequential(spec, warmed, out);
    return out;
  }
  for (uint32_t r = 0; r < spec.repetitions; ++r) {
    for (Slot& slot : InterleavedRound(spec, r, {}, warmed)) out.push_back(slot);
  }
  for (Slot& slot : SamplingRound(spec, warmed)) out.push_back(slot);
  return out;
}

}  // namespace ktune::agent
