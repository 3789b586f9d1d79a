#include "host/report/stats.h"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>

namespace ktune::host {
namespace {

std::vector<double> Finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) {
    if (std::isfinite(x)) out.push_back(x);
  }
  return out;
}

// Pairs with a NaN or an infinity on either side dropped.
void FinitePairs(const std::vector<double>& x, const std::vector<double>& y,
                 std::vector<double>* fx, std::vector<double>* fy) {
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    fx->push_back(x[i]);
    fy->push_back(y[i]);
  }
}

std::optional<Correlation> PearsonOfFinite(const std::vector<double>& x,
                                           const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 3) return std::nullopt;
  const double mx = *Mean(x), my = *Mean(y);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::nullopt;  // a constant side: r is undefined
  Correlation c;
  c.n = n;
  c.r = std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
  if (std::fabs(c.r) == 1) {
    c.p_value = 0;
    return c;
  }
  const double df = static_cast<double>(n - 2);
  const double t = c.r * std::sqrt(df / (1 - c.r * c.r));
  c.p_value =
      2 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), std::fabs(t)));
  return c;
}

// The number of arrangements of m values of one sample among n of the other with each U,
// u = 0..m*n: the coefficients of the Gaussian binomial [m + n choose m], built as
// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
std::vector<double> ExactUCounts(size_t m, size_t n) {
  std::vector<double> poly(m * n + 1, 0.0);
  poly[0] = 1;
  for (size_t i = 1; i <= m; ++i) {
    for (size_t j = poly.size(); j-- > n + i;) poly[j] -= poly[j - n - i];  // x (1 - q^(n+i))
    for (size_t j = i; j < poly.size(); ++j) poly[j] += poly[j - i];        // / (1 - q^i)
  }
  return poly;
}

}  // namespace

std::optional<double> Mean(const std::vector<double>& values) {
  const std::vector<double> v = Finite(values);
  if (v.empty()) return std::nullopt;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

std::optional<double> Min(const std::vector<double>& values) {
  const std::vector<double> v = Finite(values);
  if (v.empty()) return std::nullopt;
  return *std::min_element(v.begin(), v.end());
}

std::optional<double> Max(const std::vector<double>& values) {
  const std::vector<double> v = Finite(values);
  if (v.empty()) return std::nullopt;
  return *std::max_element(v.begin(), v.end());
}

std::optional<double> StdDev(const std::vector<double>& values) {
  const std::vector<double> v = Finite(values);
  if (v.size() < 2) return std::nullopt;
  const double mean = *Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

std::optional<double> CoefficientOfVariation(const std::vector<double>& values) {
  const auto sd = StdDev(values);
  const auto mean = Mean(values);
  if (!sd || !mean || *mean == 0) return std::nullopt;
  return *sd / std::fabs(*mean);
}

std::optional<SignTest> SignTestOf(const std::vector<double>& differences) {
  SignTest t;
  for (double d : differences) {
    if (!std::isfinite(d) || d == 0) continue;
    ++t.n;
    if (d > 0) ++t.positive;
  }
  if (t.n == 0) return std::nullopt;
  const boost::math::binomial_distribution<double> b(static_cast<double>(t.n), 0.5);
  const double tail =
      boost::math::cdf(b, static_cast<double>(std::min(t.positive, t.n - t.positive)));
  t.p_value = std::min(1.0, 2 * tail);
  return t;
}

std::optional<double> MedianAbsoluteDeviation(const std::vector<double>& values) {
  const std::vector<double> v = Finite(values);
  const auto median = Median(v);
  if (!median) return std::nullopt;
  std::vector<double> deviations;
  for (double x : v) deviations.push_back(std::fabs(x - *median));
  return Median(deviations);
}

std::vector<size_t> Outliers(const std::vector<double>& values, double threshold) {
  std::vector<size_t> out;
  const auto median = Median(values);
  const auto mad = MedianAbsoluteDeviation(values);
  if (Finite(values).size() < 3 || !mad || *mad == 0) return out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    if (std::fabs(0.6745 * (values[i] - *median) / *mad) > threshold) out.push_back(i);
  }
  return out;
}

std::vector<double> Ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double average = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = average;
    i = j + 1;
  }
  return ranks;
}

std::optional<Correlation> Pearson(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return std::nullopt;
  std::vector<double> fx, fy;
  FinitePairs(x, y, &fx, &fy);
  return PearsonOfFinite(fx, fy);
}

std::optional<Correlation> Spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return std::nullopt;
  std::vector<double> fx, fy;
  FinitePairs(x, y, &fx, &fy);
  return PearsonOfFinite(Ranks(fx), Ranks(fy));
}

std::optional<MannWhitney> MannWhitneyU(const std::vector<double>& a,
                                        const std::vector<double>& b) {
  const std::vector<double> fa = Finite(a), fb = Finite(b);
  const size_t n1 = fa.size(), n2 = fb.size();
  if (n1 == 0 || n2 == 0) return std::nullopt;
  std::vector<double> all = fa;
  all.insert(all.end(), fb.begin(), fb.end());
  const std::vector<double> ranks = Ranks(all);
  double rank_sum = 0;
  for (size_t i = 0; i < n1; ++i) rank_sum += ranks[i];
  const double n1d = static_cast<double>(n1), n2d = static_cast<double>(n2);
  MannWhitney out;
  out.u = rank_sum - n1d * (n1d + 1) / 2;
  const double u_max = std::max(out.u, n1d * n2d - out.u);

  // Ties: groups of equal values, for the exactness rule and the variance correction.
  std::vector<double> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  double tie_term = 0;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  out.exact = (n1 <= 8 || n2 <= 8) && tie_term == 0;
  if (out.exact) {
    const std::vector<double> counts = ExactUCounts(std::min(n1, n2), std::max(n1, n2));
    double total = 0, tail = 0;
    for (size_t u = 0; u < counts.size(); ++u) {
      total += counts[u];
      if (static_cast<double>(u) >= u_max) tail += counts[u];
    }
    out.p_value = std::min(1.0, 2 * tail / total);
    return out;
  }
  const double n = n1d + n2d;
  const double variance = n1d * n2d / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) {  // every value equal: nothing tells the samples apart
    out.p_value = 1;
    return out;
  }
  const double z = (u_max - n1d * n2d / 2 - 0.5) / std::sqrt(variance);
  out.p_value =
      std::clamp(2 * boost::math::cdf(boost::math::complement(boost::math::normal(), z)), 0.0, 1.0);
  return out;
}

}  // namespace ktune::host
