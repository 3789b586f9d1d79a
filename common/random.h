// Seeded draws that come out the same on every machine: std::mt19937_64's output is fixed by the
// standard, but the standard's distributions are not (libstdc++ and libc++ draw differently), so
// khost's seeded sampling (khost tune --sample, khost corpus sample) draws through this instead.
#pragma once

#include <cstdint>
#include <random>

namespace ktune {

// A uniform draw from [0, bound) (bound > 0) by rejection: raw outputs at or above the largest
// multiple of `bound` are drawn again, and the accepted one is taken modulo `bound`. Depends on
// nothing but the generator's outputs, so a seed gives the same draws on every machine.
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t bound);

// A uniform double in [0, 1) from the top 53 bits of one output.
double UniformUnit(std::mt19937_64& rng);

}  // namespace ktune
