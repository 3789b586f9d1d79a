#include "host/search/warm_start.h"

#include <algorithm>

#include "common/strings.h"

namespace ktune::host {
namespace {

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

}  // namespace

WarmStart WarmStartOf(const SearchSpace& space, const std::vector<BestAnswer>& answers,
                      size_t count) {
  WarmStart w;
  std::vector<std::string> from;
  for (size_t rank = 0; w.configs.size() < count; ++rank) {
    bool more = false;
    for (size_t a = 0; a < answers.size() && w.configs.size() < count; ++a) {
      if (rank >= answers[a].entries.size()) continue;
      more = true;
      const BestEntry& e = answers[a].entries[rank];
      std::vector<int64_t> c = ConfigOf(space, e.config);
      if (c.empty() || space.FindConfig(c) == space.size() ||
          std::find(w.configs.begin(), w.configs.end(), c) != w.configs.end()) {
        continue;
      }
      w.configs.push_back(std::move(c));
      const std::string source = ShapeLabel(answers[a].shape) + " (" + answers[a].fallback + ")";
      if (std::find(from.begin(), from.end(), source) == from.end()) from.push_back(source);
    }
    if (!more) break;
  }
  if (w.configs.empty()) {
    w.about = "the tuning database's best configurations are none of this space's";
    return w;
  }
  w.about = std::to_string(w.configs.size()) +
            " configurations first: the tuning database's best at " + Join(from, ", ");
  return w;
}

WarmStart FindWarmStart(const std::optional<DbChoice>& choice, const std::string& kernel,
                        const std::string& board, const std::vector<Params>& shapes,
                        const SearchSpace& space, size_t count) {
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
                          .top = 4 * count});
    if (a.ok()) {
      answers.push_back(std::move(*a));
    } else if (why.empty()) {
      why = a.status().message();
    }
  }
  if (answers.empty()) return {{}, "none: " + why};
  return WarmStartOf(space, answers, count);
}

}  // namespace ktune::host
