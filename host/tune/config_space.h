// The configuration space of a kernel spec: the grid of its parameters' candidate values,
// filtered by its constraints, or a reproducible random sample of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/results/kernel_dir.h"
#include "host/tune/kspec.h"

namespace ktune::host {

// One configuration: a value per parameter, in the spec's parameter order.
using Config = std::vector<int64_t>;

struct SpaceRequest {
  std::optional<size_t> sample;  // keep this many configurations, drawn at random
  uint64_t seed = 0;             // the draw's seed
  // The problem shapes the constraints are read at (their shape names): a configuration is kept
  // when they hold at one of them at least. Empty: the spec's shape.
  std::vector<std::vector<std::pair<std::string, int64_t>>> shapes{};
};

struct Space {
  std::vector<Config> configs;  // grid order: the first parameter varies slowest
  size_t grid_size = 0;         // before constraints
  size_t feasible = 0;          // after constraints, before sampling
};

// Grids beyond this many configurations are refused (narrow the candidates instead).
inline constexpr size_t kMaxGridSize = 10'000'000;

// Enumerates the grid (every combination once: candidate values are already unique), keeps the
// configurations every constraint holds for (non-zero), then samples. An empty result is an error
// naming the constraints; so is a constraint that cannot be evaluated (division by zero).
// Sampling is a seeded Fisher-Yates shuffle (mt19937_64 with rejection, so it does not depend on
// the standard library), the first N kept in grid order; N at least the space keeps all.
Result<Space> EnumerateSpace(const KernelSpec& spec, const SpaceRequest& request);

// The values of every name a constraint may read: parameters (from `config`), constants, shape
// names (from `shape`).
std::optional<double> LookupName(const KernelSpec& spec, const Config& config,
                                 const std::vector<std::pair<std::string, int64_t>>& shape,
                                 const std::string& name);

// Whether every constraint holds for `config` at `shape`; an error names a constraint that cannot
// be evaluated.
Result<bool> Satisfies(const KernelSpec& spec, const Config& config,
                       const std::vector<std::pair<std::string, int64_t>>& shape);

// The work of one call of `config` at `shape` (the spec's flops and bytes formulas; none when it
// has neither). An error names the spec's line, the formula and the shape when one cannot be
// evaluated (division by zero) or its value is negative or not finite.
Result<VariantWork> WorkOf(const KernelSpec& spec, const Config& config,
                           const std::vector<std::pair<std::string, int64_t>>& shape);

}  // namespace ktune::host
