#include "host/stats.h"

#include <algorithm>
#include <cmath>

namespace ktune {
namespace {

std::vector<double> Finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) {
    if (!std::isnan(x)) out.push_back(x);
  }
  return out;
}

}  // namespace

std::optional<double> Median(std::vector<double> values) {
  values = Finite(values);
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

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

}  // namespace ktune
