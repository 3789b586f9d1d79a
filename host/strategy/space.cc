#include "host/strategy/space.h"

#include <algorithm>

namespace ktune::host {

Result<SearchSpace> SearchSpace::Make(std::vector<std::string> names,
                                      std::vector<std::vector<int64_t>> values,
                                      const std::vector<std::vector<int64_t>>& configs) {
  if (names.empty() || names.size() != values.size()) {
    return InvalidArgument("a search space needs parameters, each with its candidate values");
  }
  uint64_t grid = 1;
  for (size_t d = 0; d < values.size(); ++d) {
    if (values[d].empty()) return InvalidArgument("parameter " + names[d] + " has no values");
    if (grid > UINT64_MAX / values[d].size()) return InvalidArgument("the grid is too large");
    grid *= values[d].size();
  }
  if (configs.empty()) return InvalidArgument("a search space needs a feasible configuration");
  SearchSpace s;
  s.names_ = std::move(names);
  s.values_ = std::move(values);
  for (const std::vector<int64_t>& c : configs) {
    if (c.size() != s.values_.size()) {
      return InvalidArgument("a configuration has " + std::to_string(c.size()) + " values for " +
                             std::to_string(s.values_.size()) + " parameters");
    }
    Point p(c.size());
    for (size_t d = 0; d < c.size(); ++d) {
      const auto& vs = s.values_[d];
      const auto at = std::find(vs.begin(), vs.end(), c[d]);
      if (at == vs.end()) {
        return InvalidArgument(s.names_[d] + " = " + std::to_string(c[d]) +
                               " is not one of its candidate values");
      }
      p[d] = static_cast<uint32_t>(at - vs.begin());
    }
    if (!s.index_.emplace(s.Key(p), s.points_.size()).second) {
      return InvalidArgument("a configuration is given twice");
    }
    s.points_.push_back(std::move(p));
  }
  return s;
}

uint64_t SearchSpace::Key(const Point& p) const {
  uint64_t key = 0;
  for (size_t d = 0; d < p.size(); ++d) key = key * values_[d].size() + p[d];
  return key;
}

std::vector<int64_t> SearchSpace::config(size_t i) const {
  std::vector<int64_t> c(dimensions());
  for (size_t d = 0; d < c.size(); ++d) c[d] = values_[d][points_[i][d]];
  return c;
}

size_t SearchSpace::Find(const Point& p) const {
  if (p.size() != dimensions()) return size();
  for (size_t d = 0; d < p.size(); ++d) {
    if (p[d] >= values_[d].size()) return size();
  }
  const auto it = index_.find(Key(p));
  return it == index_.end() ? size() : it->second;
}

size_t SearchSpace::FindConfig(const std::vector<int64_t>& config) const {
  if (config.size() != dimensions()) return size();
  Point p(config.size());
  for (size_t d = 0; d < config.size(); ++d) {
    const auto& vs = values_[d];
    const auto at = std::find(vs.begin(), vs.end(), config[d]);
    if (at == vs.end()) return size();
    p[d] = static_cast<uint32_t>(at - vs.begin());
  }
  return Find(p);
}

std::vector<size_t> SearchSpace::HammingNeighbours(size_t i) const {
  std::vector<size_t> out;
  Point p = points_[i];
  for (size_t d = 0; d < p.size(); ++d) {
    const uint32_t own = p[d];
    for (uint32_t v = 0; v < values_[d].size(); ++v) {
      if (v == own) continue;
      p[d] = v;
      if (const size_t n = Find(p); n < size()) out.push_back(n);
    }
    p[d] = own;
  }
  return out;
}

std::vector<size_t> SearchSpace::AdjacentNeighbours(size_t i) const {
  // Every combination of -1, 0, +1 per parameter, as a base-3 odometer, but all zeros.
  std::vector<size_t> out;
  const Point& own = points_[i];
  std::vector<int> step(own.size(), -1);
  while (true) {
    Point p = own;
    bool moved = false, inside = true;
    for (size_t d = 0; d < p.size() && inside; ++d) {
      const int64_t v = static_cast<int64_t>(own[d]) + step[d];
      inside = v >= 0 && v < static_cast<int64_t>(values_[d].size());
      p[d] = static_cast<uint32_t>(v);
      moved = moved || step[d] != 0;
    }
    if (inside && moved) {
      if (const size_t n = Find(p); n < size()) out.push_back(n);
    }
    size_t d = 0;
    while (d < step.size() && step[d] == 1) step[d++] = -1;
    if (d == step.size()) break;
    ++step[d];
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> SearchSpace::Coordinates(size_t i) const {
  std::vector<double> x(dimensions());
  for (size_t d = 0; d < x.size(); ++d) {
    x[d] = (points_[i][d] + 0.5) / static_cast<double>(values_[d].size());
  }
  return x;
}

}  // namespace ktune::host
