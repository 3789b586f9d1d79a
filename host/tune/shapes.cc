#include "host/tune/shapes.h"

#include <algorithm>
#include <set>

#include "common/strings.h"

namespace ktune::host {

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

Params ShapeParams(const Shape& shape) {
  Params p;
  for (const auto& [name, value] : shape) p.emplace_back(name, std::to_string(value));
  return p;
}

}  // namespace ktune::host
