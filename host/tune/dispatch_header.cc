#include "host/tune/dispatch_header.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/strings.h"
#include "host/tune/shapes.h"

namespace ktune::host {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string Quoted(const std::vector<std::string>& names) {
  std::vector<std::string> q;
  for (const std::string& n : names) q.push_back("\"" + n + "\"");
  return Join(q, ", ");
}

std::string Values(const std::vector<int64_t>& values) {
  std::vector<std::string> v;
  for (int64_t x : values) v.push_back(std::to_string(x));
  return Join(v, ", ");
}

// A comment's text with nothing that could end it.
std::string CommentSafe(std::string s) {
  for (size_t at; (at = s.find("*/")) != std::string::npos;) s.replace(at, 2, "* /");
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// The table's errors: no entry, a name that is not a C identifier, an entry of the wrong width,
// two entries of one shape.
Status CheckTable(const DispatchTable& t) {
  if (t.entries.empty()) return InvalidArgument("no shape has a winner to dispatch to");
  for (const std::string& name : [&] {
         std::vector<std::string> all = {t.kernel};
         all.insert(all.end(), t.dims.begin(), t.dims.end());
         all.insert(all.end(), t.params.begin(), t.params.end());
         return all;
       }()) {
    if (!IsIdentifier(name)) {
      return InvalidArgument("'" + name + "' is not a C identifier: no dispatch header");
    }
  }
  std::set<std::vector<int64_t>> shapes;
  for (const DispatchEntry& e : t.entries) {
    if (e.shape.size() != t.dims.size() || e.config.size() != t.params.size()) {
      return InvalidArgument("a dispatch entry of the wrong width");
    }
    if (!shapes.insert(e.shape).second) {
      return InvalidArgument("two winners for the shape " + Values(e.shape));
    }
  }
  return Status::Ok();
}

// The header's comment, guard, sizes, names and entry type.
std::string HeaderTop(const DispatchTable& t) {
  const std::string k = t.kernel, K = AsciiUpper(t.kernel);
  const std::string dims = std::to_string(t.dims.size()), params = std::to_string(t.params.size()),
                    entries = std::to_string(t.entries.size());
  std::string h;
  h += "/* " + k + "_dispatch.h, written by khost tune --apply-best from run " +
       CommentSafe(t.run_id) + ":\n";
  h += " * do not edit (apply a run again). The winning configuration of " + k +
       " at each shape the run measured,\n * and ";
  h += k + "_dispatch(), which gives the configuration for any shape: the one of the same\n";
  h += " * shape, else of the nearest shape measured: the smallest product over " +
       Join(t.dims, ", ") + " of the larger\n";
  h += " * over the smaller (twice or half as large in one dimension is at 2), the first in the "
       "table on a\n";
  h += " * tie. A dimension of 0 or less is taken as 1. */\n";
  h += "#ifndef " + K + "_DISPATCH_H\n#define " + K + "_DISPATCH_H\n\n";
  h += "#define " + K + "_DISPATCH_DIMS " + dims + "\n";
  h += "#define " + K + "_DISPATCH_PARAMS " + params + "\n";
  h += "#define " + K + "_DISPATCH_ENTRIES " + entries + "\n\n";
  h += "/* The dimensions of a shape, and the parameters of a configuration, in their order. */\n";
  h += "static const char* const " + k + "_dispatch_dims[" + K + "_DISPATCH_DIMS] = {" +
       Quoted(t.dims) + "};\n";
  h += "static const char* const " + k + "_dispatch_params[" + K + "_DISPATCH_PARAMS] = {" +
       Quoted(t.params) + "};\n\n";
  h += "struct " + k + "_dispatch_entry {\n";
  h += "  long shape[" + K + "_DISPATCH_DIMS];\n";
  h += "  long config[" + K + "_DISPATCH_PARAMS];\n};\n\n";
  return h;
}

// The winners, one entry a line.
std::string TableText(const DispatchTable& t) {
  const std::string k = t.kernel, K = AsciiUpper(t.kernel);
  std::string h;
  h += "static const struct " + k + "_dispatch_entry " + k + "_dispatch_table[" + K +
       "_DISPATCH_ENTRIES] = {\n";
  for (const DispatchEntry& e : t.entries) {
    std::vector<std::string> at;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      at.push_back(t.dims[d] + "=" + std::to_string(e.shape[d]));
    }
    h += "    {{" + Values(e.shape) + "}, {" + Values(e.config) + "}}, /* " + Join(at, " ") +
         (e.comment.empty() ? "" : ": " + CommentSafe(e.comment)) + " */\n";
  }
  h += "};\n\n";
  return h;
}

// <kernel>_dispatch(): the nearest shape's configuration.
std::string LookupText(const DispatchTable& t) {
  const std::string k = t.kernel, K = AsciiUpper(t.kernel);
  std::string h;
  h += "/* The configuration (" + K + "_DISPATCH_PARAMS values) for `shape` (" + K +
       "_DISPATCH_DIMS values). */\n";
  h += "static inline const long* " + k + "_dispatch(const long* shape) {\n";
  h += "  int best = 0;\n  double best_distance = 0;\n";
  h += "  for (int e = 0; e < " + K + "_DISPATCH_ENTRIES; ++e) {\n";
  h += "    double distance = 1;\n";
  h += "    for (int d = 0; d < " + K + "_DISPATCH_DIMS; ++d) {\n";
  h += "      const double q = shape[d] > 0 ? (double)shape[d] : 1.0;\n";
  h += "      const long m = " + k + "_dispatch_table[e].shape[d];\n";
  h += "      const double s = m > 0 ? (double)m : 1.0;\n";
  h += "      distance *= q > s ? q / s : s / q;\n";
  h += "    }\n";
  h += "    if (e == 0 || distance < best_distance) {\n";
  h += "      best = e;\n      best_distance = distance;\n    }\n  }\n";
  h += "  return " + k + "_dispatch_table[best].config;\n}\n\n";
  return h;
}

}  // namespace

Result<std::string> DispatchHeader(const DispatchTable& t) {
  KT_RETURN_IF_ERROR(CheckTable(t));
  return HeaderTop(t) + TableText(t) + LookupText(t) + "#endif /* " + AsciiUpper(t.kernel) +
         "_DISPATCH_H */\n";
}

Result<DispatchTable> MakeDispatchTable(const KernelSpec& spec, const std::string& run_id,
                                        const std::vector<ShapeWinner>& winners,
                                        std::vector<std::string>* notes) {
  DispatchTable table;
  table.kernel = spec.name;
  table.run_id = run_id;
  for (const std::string& d : ProblemDimensions(spec)) {
    if (!winners.empty() && !ParamValue(winners.front().shape, d, "").empty()) {
      table.dims.push_back(d);
    }
  }
  for (const SpecParam& p : spec.params) table.params.push_back(p.name);
  for (const ShapeWinner& w : winners) {
    const std::string label = ShapeLabel(w.shape);
    if (!w.problem.empty()) {
      notes->push_back("no winner at " + label + " (" + w.problem +
                       "): left out of the dispatch table");
      continue;
    }
    DispatchEntry e;
    e.comment = w.why;
    for (const std::string& d : table.dims) {
      auto v = ParseInt64(ParamValue(w.shape, d, ""));
      if (!v.ok()) return InvalidArgument("shape " + label + " has no " + d);
      e.shape.push_back(*v);
    }
    for (const std::string& p : table.params) {
      auto v = ParseInt64(ParamValue(w.config, p, ""));
      if (!v.ok()) {
        return InvalidArgument("the winner at " + label + ", " + w.variant + ", has no integer " +
                               p + " (the spec changed since the run?)");
      }
      e.config.push_back(*v);
    }
    if (std::any_of(table.entries.begin(), table.entries.end(),
                    [&](const DispatchEntry& o) { return o.shape == e.shape; })) {
      notes->push_back("the run measured " + label + " twice in " + Join(table.dims, ", ") +
                       ": the dispatch table keeps the first");
      continue;
    }
    table.entries.push_back(std::move(e));
  }
  return table;
}

}  // namespace ktune::host
