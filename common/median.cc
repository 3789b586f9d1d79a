#include "common/median.h"

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

std::vector<double> Finite(std::vector<double> values) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); }),
      values.end());
  return values;
}

}  // namespace

std::optional<double> GeometricMean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

std::optional<double> Median(std::vector<double> values) {
  values = Finite(std::move(values));
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

size_t MinValuesForMedianInterval(double confidence) {
  // [min, max] covers the median with probability 1 - 2 * 0.5^n.
  int n = 1;
  while (1 - 2 * std::ldexp(1.0, -n) < confidence) ++n;
  return static_cast<size_t>(n);
}

std::optional<Interval> MedianConfidenceInterval(std::vector<double> values, double confidence) {
  values = Finite(std::move(values));
  const size_t n = values.size();
  if (n == 0 || n < MinValuesForMedianInterval(confidence)) return std::nullopt;
  std::sort(values.begin(), values.end());
  // Coverage of [x(j), x(n+1-j)] is 1 - 2 P(B <= j - 1), B ~ Binomial(n, 1/2); it shrinks as j
  // grows. P(B = i) = C(n, i) / 2^n is kept as mantissa * 2^exponent, renormalised each step, so
  // that 2^-n (below a double's range past n = 1074) cannot underflow before the terms count
  // (frexp and ldexp scale exactly: no exp/log tables in agentd).
  double mantissa = 1;
  int exponent = -static_cast<int>(std::min<size_t>(n, 1 << 30));
  double below = std::ldexp(mantissa, exponent);  // P(B <= j - 1), for j = 1
  size_t best = 1;
  double coverage = 1 - 2 * below;
  for (size_t j = 2; 2 * j <= n + 1; ++j) {
    const double i = static_cast<double>(j - 2);  // P(B = j - 1) from P(B = j - 2)
    int e = 0;
    mantissa = std::frexp(mantissa * ((static_cast<double>(n) - i) / (i + 1)), &e);
    exponent += e;
    below += std::ldexp(mantissa, exponent);
    const double c = 1 - 2 * below;
    if (c < confidence) break;
    best = j;
    coverage = c;
  }
  return Interval{values[best - 1], values[n - best], coverage};
}

}  // namespace ktune
