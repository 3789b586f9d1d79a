#include "common/random.h"

namespace ktune {

uint64_t UniformBelow(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t r;
  do r = rng();
  while (r >= limit);
  return r % bound;
}

double UniformUnit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace ktune
