#include "host/strategy/replay.h"

#include <algorithm>
#include <limits>

namespace ktune::host {

std::optional<double> Landscape::optimum() const {
  std::optional<double> best;
  for (const std::optional<double>& t : time) {
    if (t && (!best || *t < *best)) best = t;
  }
  return best;
}

Trace Replay(StrategyKind kind, const Landscape& landscape, const StrategyOptions& options,
             size_t batch, size_t max_evaluations) {
  std::unique_ptr<Strategy> strategy = MakeStrategy(kind, landscape.space, options);
  Trace trace;
  double best = std::numeric_limits<double>::infinity();
  while (trace.evaluated.size() < max_evaluations) {
    const size_t room = max_evaluations - trace.evaluated.size();
    const std::vector<size_t> asked = strategy->Ask(std::min(batch, room));
    if (asked.empty()) break;
    for (size_t p : asked) {
      const std::optional<double>& t = landscape.time[p];
      if (t) best = std::min(best, *t);
      trace.evaluated.push_back(p);
      trace.best_so_far.push_back(best);
      strategy->Tell(p, t);
    }
  }
  return trace;
}

std::optional<size_t> EvaluationsToReach(const Trace& trace, double optimum, double within) {
  for (size_t i = 0; i < trace.best_so_far.size(); ++i) {
    if (trace.best_so_far[i] <= optimum * (1 + within)) return i + 1;
  }
  return std::nullopt;
}

Result<Landscape> LandscapeOf(const std::vector<std::string>& names,
                              const std::vector<Measured>& measured) {
  std::vector<std::vector<int64_t>> values(names.size()), configs;
  for (const Measured& m : measured) {
    for (size_t p = 0; p < m.config.size() && p < values.size(); ++p) {
      values[p].push_back(m.config[p]);
    }
    configs.push_back(m.config);
  }
  for (std::vector<int64_t>& v : values) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  KT_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Make(names, values, configs));
  Landscape l{std::move(space), {}};
  l.time.resize(l.space.size());
  // Make keeps the configurations in the order given.
  for (size_t i = 0; i < measured.size(); ++i) l.time[i] = measured[i].time_ns;
  return l;
}

}  // namespace ktune::host
