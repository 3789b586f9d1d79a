#include "host/search/warm_start.h"

#include <algorithm>
#include <functional>

#include "common/strings.h"

namespace ktune::host {
namespace {

constexpr const char* kSameBoardAndShape = "same board and shape";  // TuningDb::Best's fallback

// The entry's configuration in the space's parameter order; empty when it lacks one of them or
// holds a value that is not a whole number.
std::vector<int64_t> ConfigOf(const SearchSpace& space, const std::string& text) {
  auto params = ParseParams(text);
  if (!params.ok() || params->size() != space.dimensions()) return {};
  std::vector<int64_t> config;
  for (const std::string& name : space.names()) {
    auto v = ParseInt64(ParamValue(*params, name, ""));
    if (!v.ok()) return {};
    config.push_back(*v);
  }
  return config;
}

// Takes the answers' entries that `keep` accepts in turn, rank by rank, into `w` until it holds
// `limit` configurations; what each one taken came from, once, into `from` (`source` of it), and
// whether it was measured at the shape searched on this board into `here`.
void TakeInTurn(const SearchSpace& space, const std::vector<BestAnswer>& answers, size_t limit,
                const std::function<bool(const BestAnswer&, const BestEntry&)>& keep,
                const std::function<std::string(const BestAnswer&)>& source, WarmStart& w,
                std::vector<std::string>& from, std::vector<bool>& here) {
  for (size_t rank = 0; w.configs.size() < limit; ++rank) {
    bool more = false;
    for (size_t a = 0; a < answers.size() && w.configs.size() < limit; ++a) {
      if (rank >= answers[a].entries.size()) continue;
      more = true;
      const BestEntry& e = answers[a].entries[rank];
      if (!keep(answers[a], e)) continue;
      std::vector<int64_t> c = ConfigOf(space, e.config);
      if (c.empty() || space.FindConfig(c) == space.size() ||
          std::find(w.configs.begin(), w.configs.end(), c) != w.configs.end()) {
        continue;
      }
      w.configs.push_back(std::move(c));
      here.push_back(answers[a].fallback == kSameBoardAndShape);
      const std::string s = source(answers[a]);
      if (std::find(from.begin(), from.end(), s) == from.end()) from.push_back(s);
    }
    if (!more) break;
  }
}

}  // namespace

WarmStart WarmStartOf(const SearchSpace& space, const std::vector<BestAnswer>& answers,
                      const WarmStartLimits& limits) {
  WarmStart w;
  std::vector<std::string> here, best;
  std::vector<bool> at_shape;
  TakeInTurn(
      space, answers, limits.reusable,
      [&](const BestAnswer& a, const BestEntry& e) {
        return a.fallback == kSameBoardAndShape && e.measured_ns >= limits.reusable_since_ns;
      },
      [](const BestAnswer& a) { return ShapeLabel(a.shape); }, w, here, at_shape);
  const size_t reusable = w.configs.size();
  TakeInTurn(
      space, answers, reusable + limits.count,
      [](const BestAnswer&, const BestEntry&) { return true; },
      [](const BestAnswer& a) { return ShapeLabel(a.shape) + " (" + a.fallback + ")"; }, w, best,
      at_shape);
  // Those measured here first, each part in the order taken.
  std::vector<std::vector<int64_t>> ordered;
  for (bool first : {true, false}) {
    for (size_t i = 0; i < w.configs.size(); ++i) {
      if (at_shape[i] == first) ordered.push_back(w.configs[i]);
    }
  }
  w.configs = std::move(ordered);
  w.here = static_cast<size_t>(std::count(at_shape.begin(), at_shape.end(), true));
  if (w.configs.empty()) {
    w.about = "the tuning database's best configurations are none of this space's";
    return w;
  }
  std::vector<std::string> parts;
  if (reusable > 0) {
    parts.push_back("those measured at " + Join(here, ", ") +
                    " on this board within the reuse age, each reused unless its ELF, test data "
                    "or method changed");
  }
  if (w.configs.size() > reusable) {
    parts.push_back((reusable ? "then " + std::to_string(w.configs.size() - reusable) + ": " : "") +
                    "the tuning database's best at " + Join(best, ", "));
  }
  w.about = std::to_string(w.configs.size()) +
            (w.configs.size() == 1 ? " configuration" : " configurations") +
            " first: " + Join(parts, "; ");
  return w;
}

WarmStart FindWarmStart(const std::optional<DbChoice>& choice, const std::string& kernel,
                        const std::string& board, const std::vector<Params>& shapes,
                        const SearchSpace& space, const WarmStartLimits& limits) {
  if (!choice) return {{}, "none: no tuning database (--db none)"};
  auto db = TuningDb::Open(*choice, /*create=*/false);
  if (!db.ok()) return {{}, "none: " + db.status().message()};
  std::vector<BestAnswer> answers;
  std::string why;
  for (const Params& shape : shapes) {
    auto a = (*db)->Best({.kernel = kernel,
                          .board = board,
                          .shape = shape,
                          .shape_given = !shape.empty(),
                          .top = std::max(4 * limits.count, limits.reusable)});
    if (a.ok()) {
      answers.push_back(std::move(*a));
    } else if (why.empty()) {
      why = a.status().message();
    }
  }
  if (answers.empty()) return {{}, "none: " + why};
  return WarmStartOf(space, answers, limits);
}

}  // namespace ktune::host
