// Small pure statistics over repetitions.
// Edge cases: an empty sample has no statistic (std::nullopt); one value is its own median,
// mean, min and max; NaN values are not expected (ktune's values are counts and times) and are
// skipped.
#pragma once

#include <optional>
#include <vector>

namespace ktune {

std::optional<double> Median(std::vector<double> values);
std::optional<double> Mean(const std::vector<double>& values);
std::optional<double> Min(const std::vector<double>& values);
std::optional<double> Max(const std::vector<double>& values);

}  // namespace ktune
