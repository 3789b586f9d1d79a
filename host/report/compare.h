// Two runs of one kernel side by side (the same variants on two boards, or before and after a
// compiler change), as google/benchmark's compare.py does it: per variant, matched by name, the
// ratio of the median times (B / A, below 1 when B is faster) and a Mann-Whitney U test of the
// two runs' repetitions; then the geometric mean of the ratios. The time is kernel-time when
// both runs have it for every compared variant, else wall-time. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/report/report.h"
#include "host/report/stats.h"
#include "host/report/table.h"

namespace ktune::host {

struct VariantComparison {
  std::string name;
  std::optional<double> a, b;  // median times; none when the variant is missing or invalid
  size_t na = 0, nb = 0;       // repetitions
  std::optional<double> ratio;
  std::optional<MannWhitney> test;
  std::string verdict;  // "faster", "slower", "same", "only in A", "invalid in B", ...
};

struct RunComparison {
  std::string run_a, run_b;
  std::string time_name, time_unit;
  std::vector<VariantComparison> variants;  // A's order, then those only in B
  std::optional<double> geomean;            // of the ratios of variants valid in both
  size_t faster = 0, slower = 0, same = 0;
  double alpha = 0.05;
};

// Fails when no variant is valid in both runs.
Result<RunComparison> CompareRuns(const RunReport& a, const RunReport& b, double alpha = 0.05);

Table ComparisonTable(const RunComparison& c);

}  // namespace ktune::host
