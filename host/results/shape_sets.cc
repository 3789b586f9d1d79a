#include "host/results/shape_sets.h"

#include <algorithm>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::host {

Result<std::vector<std::pair<std::string, int64_t>>> ParseShapeSet(std::string_view text) {
  std::vector<std::pair<std::string, int64_t>> set;
  for (const std::string& w : SplitWords(text)) {
    const size_t eq = w.find('=');
    if (eq == 0 || eq == std::string::npos) return InvalidArgument(w + ": expected NAME=VALUE");
    const std::string name = w.substr(0, eq);
    const Result<int64_t> v = ParseInt64(std::string_view(w).substr(eq + 1));
    if (!v.ok() || *v < 1 || *v > kMaxShapeValue) {
      return InvalidArgument(w + ": a shape value is an integer from 1 to " +
                             std::to_string(kMaxShapeValue));
    }
    for (const auto& [n, value] : set) {
      if (n == name) return InvalidArgument(name + " is given twice");
    }
    set.emplace_back(name, *v);
  }
  return set;
}

Result<std::vector<ShapeSet>> ParseShapesFile(std::string_view text, const std::string& path) {
  std::vector<ShapeSet> sets;
  size_t number = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++number;
    const std::string where = path + ":" + std::to_string(number);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    auto set = ParseShapeSet(line);
    if (!set.ok()) return set.status().WithContext(where);
    if (set->empty()) continue;  // blank (any white space: the fuzzer's \v)
    sets.push_back({std::move(set).value(), where});
  }
  return sets;
}

Result<std::vector<ShapeSet>> ReadShapesFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status().WithContext("--shapes");
  KT_ASSIGN_OR_RETURN(std::vector<ShapeSet> sets, ParseShapesFile(*text, path));
  if (sets.empty()) return InvalidArgument("--shapes " + path + " holds no shape");
  return sets;
}

bool InShape(const Params& shape, const std::vector<std::pair<std::string, int64_t>>& set) {
  return std::all_of(set.begin(), set.end(), [&](const auto& want) {
    return std::any_of(shape.begin(), shape.end(), [&](const auto& have) {
      return have.first == want.first && have.second == std::to_string(want.second);
    });
  });
}

Status KeepVariantsAt(const std::vector<ShapeSet>& sets, const std::string& kernel,
                      std::vector<KernelVariant>* variants) {
  std::vector<KernelVariant> kept;
  std::vector<bool> matched(sets.size(), false);
  for (KernelVariant& v : *variants) {
    bool keep = false;
    for (size_t i = 0; i < sets.size(); ++i) {
      if (InShape(v.shape, sets[i].values)) keep = matched[i] = true;
    }
    if (keep) kept.push_back(std::move(v));
  }
  for (size_t i = 0; i < sets.size(); ++i) {
    if (!matched[i]) {
      return NotFound(sets[i].where + ": no variant of " + kernel +
                      " runs at that shape (khost tune --shapes builds for it)");
    }
  }
  *variants = std::move(kept);
  return Status::Ok();
}

}  // namespace ktune::host
