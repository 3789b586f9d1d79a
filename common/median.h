// The median of repetitions and its distribution-free confidence interval: what khost's reports
// show for every variant, and what agentd's adaptive repetitions (common/racing.h) decide by, so
// both sides compute one interval in one way. No Boost: agentd is a static binary on a budget.
// NaN and infinite values are skipped (ktune's values are counts and times, so one is a bug
// upstream or a kernel printing "inf", not data).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace ktune {

// Empty sample: nullopt. One value is its own median.
std::optional<double> Median(std::vector<double> values);

// exp of the mean of the logs: nullopt for no values or a value that is not positive and finite.
std::optional<double> GeometricMean(const std::vector<double>& values);

// A distribution-free confidence interval of the median: the order statistics x(j) <= x(k)
// (1-based, k = n + 1 - j) with the largest j such that P(x(j) <= median <= x(k)) >= confidence
// under Binomial(n, 1/2). `coverage` is that probability (at least `confidence`). nullopt when
// even [min, max] does not reach the confidence: for 95%, below 6 values. All values equal:
// [v, v].
struct Interval {
  double low = 0, high = 0;
  double coverage = 0;
};
std::optional<Interval> MedianConfidenceInterval(std::vector<double> values,
                                                 double confidence = 0.95);

// The fewest values MedianConfidenceInterval needs for `confidence` (6 for 95%).
size_t MinValuesForMedianInterval(double confidence = 0.95);

}  // namespace ktune
