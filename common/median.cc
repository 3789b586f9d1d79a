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

std::optional<double> Median(std::vector<double> values) {
  values = Finite(std::move(values));
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

size_t MinValuesForMedianInterval(double confidence) {
  // [min, max] covers the median with probability 1 - 2 * 0.5^n.
  size_t n = 1;
  while (1 - 2 * std::pow(0.5, static_cast<double>(n)) < confidence) ++n;
  return n;
}

std::optional<Interval> MedianConfidenceInterval(std::vector<double> values, double confidence) {
  values = Finite(std::move(values));
  const size_t n = values.size();
  if (n == 0 || n < MinValuesForMedianInterval(confidence)) return std::nullopt;
  std::sort(values.begin(), values.end());
  // Coverage of [x(j), x(n+1-j)] is 1 - 2 P(B <= j - 1), B ~ Binomial(n, 1/2); it shrinks as j
  // grows. P(B = i) = C(n, i) / 2^n, summed in logs so that no term underflows before it counts.
  const double nd = static_cast<double>(n);
  double log_term = -nd * std::log(2.0);  // log P(B = 0)
  double below = std::exp(log_term);      // P(B <= j - 1), for j = 1
  size_t best = 1;
  double coverage = 1 - 2 * below;
  for (size_t j = 2; 2 * j <= n + 1; ++j) {
    const double i = static_cast<double>(j - 2);  // P(B = j - 1) from P(B = j - 2)
    log_term += std::log((nd - i) / (i + 1));
    below += std::exp(log_term);
    const double c = 1 - 2 * below;
    if (c < confidence) break;
    best = j;
    coverage = c;
  }
  return Interval{values[best - 1], values[n - best], coverage};
}

}  // namespace ktune
