#include "host/tune/shapes.h"

#include <algorithm>
#include <set>

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

std::vector<std::string> ProblemDimensions(const KernelSpec& spec) {
  std::set<std::string> used;
  for (const auto* tensors : {&spec.inputs, &spec.outputs}) {
    for (const TensorSpec& t : *tensors) used.insert(t.dims.begin(), t.dims.end());
  }
  std::vector<std::string> dims;
  for (const auto& [name, value] : spec.shape) {
    if (used.count(name)) dims.push_back(name);
  }
  return dims;
}

namespace {

// `set` applied to `shape`; a name the shape lacks is an error.
Status Apply(const std::vector<std::pair<std::string, int64_t>>& set, const KernelSpec& spec,
             Shape* shape) {
  for (const auto& [name, value] : set) {
    auto it =
        std::find_if(shape->begin(), shape->end(), [&](const auto& s) { return s.first == name; });
    if (it == shape->end()) return InvalidArgument(spec.path + " has no shape " + name);
    it->second = value;
  }
  return Status::Ok();
}

bool GivesEvery(const std::vector<std::pair<std::string, int64_t>>& set,
                const std::vector<std::string>& names) {
  return std::all_of(names.begin(), names.end(), [&](const std::string& n) {
    return std::any_of(set.begin(), set.end(), [&](const auto& s) { return s.first == n; });
  });
}

}  // namespace

Result<std::vector<Shape>> ResolveShapes(const KernelSpec& spec,
                                         const std::vector<std::string>& shape_args,
                                         const std::vector<ShapeSet>& file_sets) {
  const std::vector<std::string> dims = ProblemDimensions(spec);
  std::vector<ShapeSet> own = file_sets, changes;
  for (const std::string& arg : shape_args) {
    auto set = ParseShapeSet(arg);
    if (!set.ok()) return set.status().WithContext("--shape " + arg);
    if (set->empty()) return InvalidArgument("--shape '" + arg + "': expected NAME=VALUE");
    (GivesEvery(*set, dims) ? own : changes).push_back({std::move(set).value(), "--shape " + arg});
  }
  for (const ShapeSet& s : file_sets) {
    if (!GivesEvery(s.values, dims)) {
      std::vector<std::string> lacking;
      for (const std::string& d : dims) {
        if (!GivesEvery(s.values, {d})) lacking.push_back(d);
      }
      return InvalidArgument(s.where + ": " + Join(lacking, ", ") + " not given (a shape gives " +
                             Join(dims, ", ") + ", the dimensions of the spec's tensors)");
    }
  }
  Shape base = spec.shape;
  for (const ShapeSet& c : changes) {
    if (Status s = Apply(c.values, spec, &base); !s.ok()) return s.WithContext(c.where);
  }
  if (own.empty()) return std::vector<Shape>{base};
  std::vector<Shape> shapes;
  std::vector<std::string> wheres;
  for (const ShapeSet& s : own) {
    Shape shape = base;
    if (Status st = Apply(s.values, spec, &shape); !st.ok()) return st.WithContext(s.where);
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (shapes[i] == shape) {
        return InvalidArgument(s.where + ": " + ShapeLabel(ShapeParams(shape)) +
                               " is the shape of " + wheres[i] + " again");
      }
    }
    shapes.push_back(std::move(shape));
    wheres.push_back(s.where);
  }
  return shapes;
}

bool InShape(const Params& shape, const std::vector<std::pair<std::string, int64_t>>& set) {
  return std::all_of(set.begin(), set.end(), [&](const auto& want) {
    return std::any_of(shape.begin(), shape.end(), [&](const auto& have) {
      return have.first == want.first && have.second == std::to_string(want.second);
    });
  });
}

Params ShapeParams(const Shape& shape) {
  Params p;
  for (const auto& [name, value] : shape) p.emplace_back(name, std::to_string(value));
  return p;
}

}  // namespace ktune::host
