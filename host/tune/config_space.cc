#include "host/tune/config_space.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "common/random.h"
#include "common/strings.h"

namespace ktune::host {

std::optional<double> LookupName(const KernelSpec& spec, const Config& config,
                                 const std::vector<std::pair<std::string, int64_t>>& shape,
                                 const std::string& name) {
  for (size_t i = 0; i < spec.params.size(); ++i) {
    if (spec.params[i].name == name) return static_cast<double>(config[i]);
  }
  for (const auto& [n, v] : spec.constants) {
    if (n == name) return static_cast<double>(v);
  }
  for (const auto& [n, v] : shape) {
    if (n == name) return static_cast<double>(v);
  }
  return std::nullopt;
}

Result<bool> Satisfies(const KernelSpec& spec, const Config& config,
                       const std::vector<std::pair<std::string, int64_t>>& shape) {
  for (const SpecFormula& c : spec.constraints) {
    Result<double> v = c.expr.Evaluate(
        [&](const std::string& name) { return LookupName(spec, config, shape, name); });
    if (!v.ok()) {
      return InvalidArgument(spec.path + ":" + std::to_string(c.line) + ": constraint " + c.text +
                             ": " + v.status().message());
    }
    if (*v == 0) return false;
  }
  return true;
}

Result<VariantWork> WorkOf(const KernelSpec& spec, const Config& config,
                           const std::vector<std::pair<std::string, int64_t>>& shape) {
  VariantWork work;
  for (const auto& [key, formula, out] :
       {std::tuple{"flops", &spec.flops, &work.flops}, {"bytes", &spec.bytes, &work.bytes}}) {
    if (!*formula) continue;
    const SpecFormula& f = **formula;
    Result<double> v = f.expr.Evaluate(
        [&](const std::string& name) { return LookupName(spec, config, shape, name); });
    std::string why;
    if (!v.ok()) {
      why = v.status().message();
    } else if (!std::isfinite(*v)) {
      why = "not a finite number";
    } else if (*v < 0) {
      why = "negative (" + FormatDouble(*v) + "); work is a count, 0 or more";
    }
    if (!why.empty()) {
      std::vector<std::string> at;
      for (size_t i = 0; i < spec.params.size() && i < config.size(); ++i) {
        at.push_back(spec.params[i].name + "=" + std::to_string(config[i]));
      }
      for (const auto& [n, value] : shape) at.push_back(n + "=" + std::to_string(value));
      return InvalidArgument(spec.path + ":" + std::to_string(f.line) + ": " + key + ": " + f.text +
                             (at.empty() ? "" : " at " + Join(at, " ")) + ": " + why);
    }
    *out = *v;
  }
  return work;
}

namespace {

// `count` of the configurations, drawn uniformly without replacement by a seeded mt19937_64
// Fisher-Yates shuffle from the back (each draw UniformBelow's: the same on every machine), kept
// in grid order.
std::vector<Config> SampleConfigs(const std::vector<Config>& configs, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size() - 1; i > 0; --i) {
    std::swap(order[i], order[UniformBelow(rng, i + 1)]);
  }
  order.resize(count);
  std::sort(order.begin(), order.end());
  std::vector<Config> kept;
  for (size_t i : order) kept.push_back(configs[i]);
  return kept;
}

}  // namespace

Result<Space> EnumerateSpace(const KernelSpec& spec, const SpaceRequest& request) {
  Space space;
  space.grid_size = 1;
  for (const SpecParam& p : spec.params) {
    if (space.grid_size > kMaxGridSize / p.values.size()) {
      return InvalidArgument(spec.path + ": the grid has more than " +
                             std::to_string(kMaxGridSize) +
                             " configurations; give fewer candidate values");
    }
    space.grid_size *= p.values.size();
  }
  using Shape = std::vector<std::pair<std::string, int64_t>>;
  const std::vector<Shape> shapes =
      request.shapes.empty() ? std::vector<Shape>{spec.shape} : request.shapes;
  std::vector<size_t> index(spec.params.size(), 0);
  Config config(spec.params.size());
  for (size_t n = 0; n < space.grid_size; ++n) {
    for (size_t i = 0; i < spec.params.size(); ++i) config[i] = spec.params[i].values[index[i]];
    bool keep = false;
    for (const auto& shape : shapes) {
      KT_ASSIGN_OR_RETURN(keep, Satisfies(spec, config, shape));
      if (keep) break;
    }
    if (keep) space.configs.push_back(config);
    // Odometer: the last parameter varies fastest.
    for (size_t i = spec.params.size(); i-- > 0;) {
      if (++index[i] < spec.params[i].values.size()) break;
      index[i] = 0;
    }
  }
  space.feasible = space.configs.size();
  if (space.configs.empty()) {
    std::vector<std::string> lines;
    for (const SpecFormula& c : spec.constraints) lines.push_back(std::to_string(c.line));
    return InvalidArgument(spec.path + ": no configuration of " + std::to_string(space.grid_size) +
                           " satisfies the constraints (lines " + Join(lines, ", ") + ")");
  }
  if (request.sample && *request.sample < space.configs.size()) {
    space.configs = SampleConfigs(space.configs, *request.sample, request.seed);
  }
  return space;
}

}  // namespace ktune::host
