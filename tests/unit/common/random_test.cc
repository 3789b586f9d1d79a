#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "common/random.h"

namespace ktune {
namespace {

TEST_CASE(
    "uniform draws below a bound: the generator's outputs modulo the bound, the same for a seed") {
  // mt19937_64's outputs are fixed by the standard: seed 7 starts 13915952638675311015, ...
  std::mt19937_64 rng(7);
  std::vector<uint64_t> draws;
  for (int i = 0; i < 5; ++i) draws.push_back(UniformBelow(rng, 10));
  CHECK(draws == std::vector<uint64_t>{5, 0, 8, 6, 1});
  std::mt19937_64 one(1);
  for (int i = 0; i < 100; ++i) CHECK(UniformBelow(one, 1) == 0);
  // A bound just above half the range rejects about half the outputs, and never goes out of it.
  const uint64_t big = (UINT64_MAX / 2) + 2;
  std::mt19937_64 again(3);
  for (int i = 0; i < 100; ++i) CHECK(UniformBelow(again, big) < big);
}

TEST_CASE("uniform doubles in [0, 1): an output's top 53 bits") {
  std::mt19937_64 rng(7), raw(7);
  for (int i = 0; i < 100; ++i) {
    const double u = UniformUnit(rng);
    CHECK(u == static_cast<double>(raw() >> 11) / 9007199254740992.0);  // 2^53
    CHECK(u >= 0);
    CHECK(u < 1);
  }
}

}  // namespace
}  // namespace ktune
