// The space a search strategy walks (host/strategy/strategy.h): each parameter's candidate values
// in order, and the feasible configurations (the grid filtered by the constraints,
// host/tune/config_space.h) as points, a value index per parameter. Neighbours are Kernel Tuner's:
// Hamming (one parameter changed to any of its values) and strictly adjacent (every parameter's
// index moved by at most one, at least one moved); only feasible points are neighbours. A
// point's coordinates for a model are its indices scaled into [0, 1], (index + 0.5) / count.
//
// Pure. Edge cases: a configuration holding a value that is not a candidate, or given twice, is an
// error; a space of no configurations or no parameters is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace ktune::host {

using Point = std::vector<uint32_t>;  // a value index per parameter

class SearchSpace {
 public:
  // `configs` give each configuration's values, in the parameters' order.
  static Result<SearchSpace> Make(std::vector<std::string> names,
                                  std::vector<std::vector<int64_t>> values,
                                  const std::vector<std::vector<int64_t>>& configs);

  size_t size() const { return points_.size(); }
  size_t dimensions() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::vector<int64_t>>& values() const { return values_; }
  const Point& point(size_t i) const { return points_[i]; }
  // The configuration's values.
  std::vector<int64_t> config(size_t i) const;
  // The feasible point at `p`, or size() when `p` is not one.
  size_t Find(const Point& p) const;
  // The feasible point holding the values `config` (one per parameter), or size() when none does.
  size_t FindConfig(const std::vector<int64_t>& config) const;
  std::vector<size_t> HammingNeighbours(size_t i) const;
  std::vector<size_t> AdjacentNeighbours(size_t i) const;
  std::vector<double> Coordinates(size_t i) const;

 private:
  uint64_t Key(const Point& p) const;  // mixed radix over the value counts

  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> values_;
  std::vector<Point> points_;
  std::unordered_map<uint64_t, size_t> index_;
};

}  // namespace ktune::host
