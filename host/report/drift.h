// Drift: whether the machine's speed changed during a run (a governor, heat, a job that started
// halfway), from the times themselves. Each variant's times are split at the middle of its
// repetitions into an early and a late half, and each time becomes its residual against its
// variant's median (time / median - 1), so that variants of different speeds pool; the drift is
// the late residuals' median minus the early ones', tested by Mann-Whitney U. With interleaved
// rounds a drift lands on every variant alike, so it shows here; run order cannot hide it in one
// variant's block the way sequential order can (khost analyze says so).
//
// Pure. Edge cases: NaN and infinite times are skipped; a variant with fewer than 4 times, or a
// median of 0, is left out; fewer than 4 residuals on either side give no drift (nullopt).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "host/report/stats.h"

namespace ktune::host {

struct VariantTimes {
  std::vector<uint32_t> repetitions;  // the repetition of each time
  std::vector<double> times;
};

struct Drift {
  double change = 0;  // late residuals' median - early ones': +0.10 is 10% slower late
  MannWhitney test;   // early residuals against late ones
  size_t variants = 0;
  size_t early = 0, late = 0;  // residuals on each side
};

std::optional<Drift> MeasureDrift(const std::vector<VariantTimes>& variants);

}  // namespace ktune::host
