// Small pure statistics over repetitions and variants, each with its edge cases stated.
// Common to all: NaN and infinite values are skipped (ktune's values are counts and times, so
// one is a bug upstream or a kernel printing "inf", not data); a statistic that does not exist
// for the sample is std::nullopt, never a NaN. Distributions come from Boost.Math; the median
// and its interval are common/median.h's (agentd decides adaptive repetitions by them too).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "common/median.h"

namespace ktune::host {

// Empty sample: nullopt. One value is its own mean, min and max.
std::optional<double> Mean(const std::vector<double>& values);
std::optional<double> Min(const std::vector<double>& values);
std::optional<double> Max(const std::vector<double>& values);

// Sample standard deviation (n - 1 in the denominator): nullopt below two values; 0 when all
// are equal.
std::optional<double> StdDev(const std::vector<double>& values);

// StdDev / |Mean|: nullopt below two values or when the mean is 0.
std::optional<double> CoefficientOfVariation(const std::vector<double>& values);

// Median of |x - median|: nullopt for an empty sample.
std::optional<double> MedianAbsoluteDeviation(const std::vector<double>& values);

// Indices of outliers by the modified z-score (Iglewicz and Hoaglin): |0.6745 (x - median) / MAD|
// > `threshold` (3.5). When MAD is 0 (more than half the values are equal) the spread is unknown
// and nothing is flagged; fewer than three values flag nothing either.
std::vector<size_t> Outliers(const std::vector<double>& values, double threshold = 3.5);

// Correlation of paired samples with its two-sided p-value (t test with n - 2 degrees of
// freedom, as scipy's pearsonr and spearmanr). nullopt when fewer than three pairs remain after
// dropping pairs with a NaN, when the sizes differ, or when either side is constant (r is then
// undefined). |r| = 1 gives p = 0.
struct Correlation {
  double r = 0;
  double p_value = 1;
  size_t n = 0;
};
std::optional<Correlation> Pearson(const std::vector<double>& x, const std::vector<double>& y);
// Pearson's r of the ranks (ties get their average rank).
std::optional<Correlation> Spearman(const std::vector<double>& x, const std::vector<double>& y);

// The exact two-sided sign test of paired differences: zeros and NaNs dropped; k of the n left
// positive; p = min(1, 2 P(B <= min(k, n - k))), B ~ Binomial(n, 1/2). nullopt when none is left.
struct SignTest {
  size_t positive = 0, n = 0;
  double p_value = 1;
};
std::optional<SignTest> SignTestOf(const std::vector<double>& differences);

// Average ranks, 1-based: ties share the mean of the ranks they span.
std::vector<double> Ranks(const std::vector<double>& values);

// The Mann-Whitney U test of two independent samples, two-sided, as scipy's mannwhitneyu
// (method "auto"): exact when either sample has at most 8 values and there are no ties, else
// the normal approximation with tie and continuity corrections. `u` is the statistic of
// `a` (the number of pairs where a's value is larger, ties counting one half). nullopt when a
// sample is empty.
struct MannWhitney {
  double u = 0;
  double p_value = 1;
  bool exact = false;
};
std::optional<MannWhitney> MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ktune::host
