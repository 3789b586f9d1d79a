#include "host/tune/kspec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>

#include "common/fs.h"
#include "common/strings.h"
#include "host/tune/references.h"

namespace ktune::host {

const char* DTypeName(DType t) {
  return t == DType::kFloat32 ? "float32" : "int32";
}

size_t CommentStart(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) return i;
  }
  return std::string_view::npos;
}

namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

class SpecParser {
 public:
  SpecParser(const std::string& path, KernelSpec* spec) : path_(path), spec_(spec) {}

  Status Line(size_t line, std::string_view raw) {
    line_ = line;
    raw = raw.substr(0, CommentStart(raw));
    const std::string_view text = Trim(raw);
    if (text.empty() || text[0] == '#') return Status::Ok();
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) return Error("expected 'directive: value'");
    const std::string key(Trim(text.substr(0, colon)));
    const std::string_view value = Trim(text.substr(colon + 1));
    if (key == "kernel") return Kernel(value);
    if (key == "main") return List(value, &spec_->main_sources, key);
    if (key == "kernel_source") return List(value, &spec_->kernel_sources, key);
    if (key == "include") return List(value, &spec_->include_dirs, key);
    if (key == "cflags") return List(value, &spec_->cflags, key);
    if (key == "param") return Param(value);
    if (key == "constant") return Constant(value);
    if (key == "constraint") return Constraint(value);
    if (key == "flops") return Work(value, &spec_->flops, key);
    if (key == "bytes") return Work(value, &spec_->bytes, key);
    if (key == "shape") return Shape(value);
    if (key == "args") {
      args_line_ = line_;
      return List(value, &spec_->args, key);
    }
    if (key == "input") return Tensor(value, /*output=*/false);
    if (key == "output") return Tensor(value, /*output=*/true);
    if (key == "reference") return Reference(value);
    if (key == "data") return Data(value);
    if (key == "best") return Best(value);
    return Error("unknown directive '" + key + "'");
  }

  // Checks that need the whole file: names defined, constraints over known names.
  Status Finish() {
    line_ = 0;
    if (spec_->name.empty()) return Error("no 'kernel:' line");
    if (spec_->main_sources.empty()) return Error("no 'main:' line");
    if (spec_->params.empty()) return Error("no 'param:' line");
    KT_RETURN_IF_ERROR(CheckFormulaNames());
    for (const std::vector<TensorSpec>* list : {&spec_->inputs, &spec_->outputs}) {
      for (const TensorSpec& t : *list) {
        line_ = t.line;
        for (const std::string& d : t.dims) {
          if (!ParseInt64(d).ok() && !InShape(d)) {
            return Error("tensor " + t.name + ": dimension " + d + " is not a shape name");
          }
        }
      }
    }
    line_ = best_line_;
    for (const auto& [name, value] : spec_->best) {
      const bool param = std::any_of(spec_->params.begin(), spec_->params.end(),
                                     [&](const SpecParam& p) { return p.name == name; });
      if (!param) return Error("best: " + name + " is not a parameter");
    }
    if (!spec_->best.empty() && spec_->best.size() != spec_->params.size()) {
      return Error("best: gives " + std::to_string(spec_->best.size()) + " of the " +
                   std::to_string(spec_->params.size()) +
                   " parameters (khost tune --apply-best rewrites it)");
    }
    line_ = args_line_;
    Result<std::vector<std::string>> args = ExpandArgs(*spec_, spec_->shape);
    if (!args.ok()) return Error(args.status().message());
    line_ = reference_line_;
    if (!spec_->reference.empty()) {
      const host::Reference* ref = FindReference(spec_->reference);
      if (ref->inputs != spec_->inputs.size() || ref->outputs != spec_->outputs.size()) {
        return Error("reference " + spec_->reference + " takes " + std::to_string(ref->inputs) +
                     " inputs and gives " + std::to_string(ref->outputs) +
                     " outputs; the spec has " + std::to_string(spec_->inputs.size()) + " and " +
                     std::to_string(spec_->outputs.size()));
      }
    } else if (!spec_->outputs.empty()) {
      line_ = spec_->outputs.front().line;
      return Error("outputs need a 'reference:' to compute their golden values");
    }
    return Status::Ok();
  }

 private:
  Status Kernel(std::string_view value) {
    if (!IsIdentifier(value)) return Error("kernel name must be an identifier");
    if (!spec_->name.empty()) return Error("second 'kernel:' line");
    spec_->name = std::string(value);
    return Status::Ok();
  }

  Status List(std::string_view value, std::vector<std::string>* out, const std::string& key) {
    std::vector<std::string> words = SplitWords(value);
    if (words.empty()) return Error("'" + key + ":' needs at least one value");
    out->insert(out->end(), words.begin(), words.end());
    return Status::Ok();
  }

  // "NAME = rest" with NAME new.
  Result<std::pair<std::string, std::string_view>> Assignment(std::string_view value) {
    const size_t eq = value.find('=');
    if (eq == std::string_view::npos) return Error("expected 'NAME = value'");
    const std::string name(Trim(value.substr(0, eq)));
    if (!IsIdentifier(name)) return Error("'" + name + "' is not a name");
    if (Defined(name)) return Error(name + " is defined twice");
    return std::pair<std::string, std::string_view>(name, Trim(value.substr(eq + 1)));
  }

  Status Param(std::string_view value) {
    KT_ASSIGN_OR_RETURN(auto assignment, Assignment(value));
    SpecParam p{assignment.first, {}, line_};
    std::set<int64_t> seen;
    for (const std::string& w : SplitWords(assignment.second)) {
      Result<int64_t> v = ParseInt64(w);
      if (!v.ok() || *v < INT32_MIN || *v > INT32_MAX) {
        return Error("parameter " + p.name + ": '" + w + "' is not an int (C's const int)");
      }
      if (seen.insert(*v).second) p.values.push_back(*v);
      if (p.values.size() > kMaxParamValues) {
        return Error("parameter " + p.name + " has more than " + std::to_string(kMaxParamValues) +
                     " candidate values (a space to search, not to list: see khost tune "
                     "--strategy)");
      }
    }
    if (p.values.empty()) return Error("parameter " + p.name + " has no candidate values");
    spec_->params.push_back(std::move(p));
    return Status::Ok();
  }

  Status Constant(std::string_view value) {
    KT_ASSIGN_OR_RETURN(auto assignment, Assignment(value));
    Result<int64_t> v = ParseInt64(assignment.second);
    if (!v.ok() || *v < INT32_MIN || *v > INT32_MAX) {
      return Error("constant " + assignment.first + " must be one int (C's const int)");
    }
    spec_->constants.emplace_back(assignment.first, *v);
    return Status::Ok();
  }

  // best: NAME=VALUE ... (khost tune --apply-best writes it); checked against the parameters
  // once the whole file is read.
  Status Best(std::string_view value) {
    if (best_line_) return Error("second 'best:' line");
    best_line_ = line_;
    for (const std::string& w : SplitWords(value)) {
      const size_t eq = w.find('=');
      const std::string name = w.substr(0, eq);
      Result<int64_t> v = eq == std::string::npos ? Result<int64_t>(InvalidArgument(""))
                                                  : ParseInt64(w.substr(eq + 1));
      if (!IsIdentifier(name) || !v.ok() || *v < INT32_MIN || *v > INT32_MAX) {
        return Error("best: expected NAME=VALUE with an int value, got " + w);
      }
      for (const auto& [seen, unused] : spec_->best) {
        if (seen == name) return Error("best: " + name + " is given twice");
      }
      spec_->best.emplace_back(name, *v);
    }
    if (spec_->best.empty()) return Error("'best:' needs NAME=VALUE pairs");
    return Status::Ok();
  }

  Status Constraint(std::string_view value) {
    Result<Expr> expr = Expr::Parse(value);
    if (!expr.ok()) return Error(expr.status().message());
    spec_->constraints.push_back({std::string(value), std::move(*expr), line_});
    return Status::Ok();
  }

  // Constraints and work formulas read parameters, constants and shape names only.
  Status CheckFormulaNames() {
    for (const SpecFormula& c : spec_->constraints) {
      line_ = c.line;
      for (const std::string& name : c.expr.names()) {
        if (!Defined(name) && !InShape(name)) {
          return Error("constraint names unknown parameter " + name);
        }
      }
    }
    for (const auto& [key, work] : {std::pair{"flops", &spec_->flops}, {"bytes", &spec_->bytes}}) {
      if (!*work) continue;
      line_ = (*work)->line;
      for (const std::string& name : (*work)->expr.names()) {
        if (!Defined(name) && !InShape(name)) {
          return Error(std::string(key) + ": " + name +
                       " is not a parameter, constant or shape name of the spec");
        }
      }
    }
    return Status::Ok();
  }

  Status Work(std::string_view value, std::optional<SpecFormula>* work, const std::string& key) {
    if (*work) return Error("second '" + key + ":' line");
    Result<Expr> expr = Expr::Parse(value);
    if (!expr.ok()) return Error(key + ": " + expr.status().message());
    *work = SpecFormula{std::string(value), std::move(*expr), line_};
    return Status::Ok();
  }

  Status Shape(std::string_view value) {
    for (const std::string& w : SplitWords(value)) {
      const size_t eq = w.find('=');
      const std::string name = w.substr(0, eq);
      if (eq == std::string::npos || !IsIdentifier(name))
        return Error("expected NAME=VALUE, got " + w);
      Result<int64_t> v = ParseInt64(w.substr(eq + 1));
      if (!v.ok() || *v < 1 || *v > kMaxShapeValue) {
        return Error("shape " + name + " must be an integer from 1 to " +
                     std::to_string(kMaxShapeValue) + ", not '" + w.substr(eq + 1) + "'");
      }
      if (Defined(name) || InShape(name)) return Error(name + " is defined twice");
      spec_->shape.emplace_back(name, *v);
    }
    return Status::Ok();
  }

  Status Tensor(std::string_view value, bool output) {
    TensorSpec t;
    t.line = line_;
    const size_t open = value.find('['), close = value.find(']');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
      return Error("expected 'NAME DTYPE [DIMS] ...'");
    }
    const std::vector<std::string> head = SplitWords(value.substr(0, open));
    if (head.size() != 2 || !IsIdentifier(head[0])) return Error("expected 'NAME DTYPE [DIMS]'");
    t.name = head[0];
    if (head[1] == "float32" || head[1] == "f32") {
      t.dtype = DType::kFloat32;
    } else if (head[1] == "int32" || head[1] == "i32") {
      t.dtype = DType::kInt32;
    } else {
      return Error("dtype '" + head[1] + "': expected float32 or int32");
    }
    for (std::string_view d : Split(value.substr(open + 1, close - open - 1), ',')) {
      const std::string dim(Trim(d));
      if (dim.empty()) return Error("tensor " + t.name + ": empty dimension");
      t.dims.push_back(dim);
    }
    std::string_view rest = Trim(value.substr(close + 1));
    if (!output) {
      KT_RETURN_IF_ERROR(ParseDistribution(&rest, &t));
    }
    for (const std::string& w : SplitWords(rest)) {
      const size_t eq = w.find('=');
      const std::string key = w.substr(0, eq);
      const std::string v = eq == std::string::npos ? "" : w.substr(eq + 1);
      if (!output && key == "seed") {
        Result<uint64_t> seed = ParseUint64(v);
        if (!seed.ok()) return Error("seed must be a non-negative integer");
        t.seed = *seed;
      } else if (output && (key == "atol" || key == "rtol")) {
        Result<double> tol = ParseDouble(v);
        if (!tol.ok() || !std::isfinite(*tol) || *tol < 0) {
          return Error(key + " must be a finite non-negative number");
        }
        (key == "atol" ? t.atol : t.rtol) = *tol;
      } else {
        return Error("unknown setting '" + w + "' (inputs take seed=, outputs atol= and rtol=)");
      }
    }
    for (const auto* list : {&spec_->inputs, &spec_->outputs}) {
      for (const TensorSpec& other : *list) {
        if (other.name == t.name) return Error("tensor " + t.name + " is defined twice");
      }
    }
    (output ? spec_->outputs : spec_->inputs).push_back(std::move(t));
    return Status::Ok();
  }

  // uniform(LOW, HIGH) | normal(MEAN, STDDEV) | constant(VALUE), consumed from `rest`.
  Status ParseDistribution(std::string_view* rest, TensorSpec* t) {
    const size_t open = rest->find('('), close = rest->find(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
      return Error("input " + t->name + ": expected uniform(LOW, HIGH), normal(MEAN, STDDEV) or " +
                   "constant(VALUE)");
    }
    const std::string kind(Trim(rest->substr(0, open)));
    std::vector<double> numbers;
    for (std::string_view a : Split(rest->substr(open + 1, close - open - 1), ',')) {
      Result<double> v = ParseDouble(Trim(a));
      if (!v.ok() || !std::isfinite(*v)) {
        return Error("input " + t->name + ": '" + std::string(Trim(a)) +
                     "' is not a finite number");
      }
      numbers.push_back(*v);
    }
    const size_t wanted = kind == "constant" ? 1 : 2;
    if (kind == "uniform") {
      t->dist.kind = Distribution::kUniform;
    } else if (kind == "normal") {
      t->dist.kind = Distribution::kNormal;
    } else if (kind == "constant") {
      t->dist.kind = Distribution::kConstant;
    } else {
      return Error("input " + t->name + ": unknown distribution '" + kind + "'");
    }
    if (numbers.size() != wanted) {
      return Error("input " + t->name + ": " + kind + " takes " + std::to_string(wanted) +
                   (wanted == 1 ? " number" : " numbers"));
    }
    t->dist.a = numbers[0];
    t->dist.b = wanted == 2 ? numbers[1] : 0;
    if (t->dist.kind == Distribution::kUniform && t->dist.b < t->dist.a) {
      return Error("input " + t->name + ": uniform's low is above its high");
    }
    if (t->dist.kind == Distribution::kNormal && t->dist.b < 0) {
      return Error("input " + t->name + ": normal's stddev is negative");
    }
    if (t->dtype == DType::kInt32) {
      for (double v : numbers) {
        if (v < -2147483648.0 || v > 2147483647.0) {
          return Error("input " + t->name + ": " + FormatDouble(v) + " is outside int32");
        }
      }
      if (t->dist.kind == Distribution::kUniform && std::ceil(t->dist.a) > std::floor(t->dist.b)) {
        return Error("input " + t->name + ": no integer lies in uniform(" +
                     FormatDouble(t->dist.a) + ", " + FormatDouble(t->dist.b) + ")");
      }
    }
    *rest = Trim(rest->substr(close + 1));
    return Status::Ok();
  }

  Status Reference(std::string_view value) {
    if (!spec_->reference.empty()) return Error("second 'reference:' line");
    if (FindReference(value) == nullptr) {
      return Error("unknown reference '" + std::string(value) + "' (known: " + ReferenceNames() +
                   ")");
    }
    spec_->reference = std::string(value);
    reference_line_ = line_;
    return Status::Ok();
  }

  Status Data(std::string_view value) {
    if (value == "auto") {
      spec_->data = DataFormat::kAuto;
    } else if (value == "txt") {
      spec_->data = DataFormat::kTxt;
    } else if (value == "bin") {
      spec_->data = DataFormat::kBin;
    } else {
      return Error("data: expected auto, txt or bin");
    }
    return Status::Ok();
  }

  bool Defined(const std::string& name) const {
    for (const SpecParam& p : spec_->params) {
      if (p.name == name) return true;
    }
    for (const auto& c : spec_->constants) {
      if (c.first == name) return true;
    }
    return false;
  }

  bool InShape(const std::string& name) const {
    for (const auto& s : spec_->shape) {
      if (s.first == name) return true;
    }
    return false;
  }

  Status Error(const std::string& message) const {
    return InvalidArgument(path_ + (line_ ? ":" + std::to_string(line_) : "") + ": " + message);
  }

  const std::string& path_;
  KernelSpec* spec_;
  size_t line_ = 0;
  size_t reference_line_ = 0;
  size_t args_line_ = 0;
  size_t best_line_ = 0;
};

}  // namespace

Result<KernelSpec> ParseKernelSpec(std::string_view text, const std::string& path) {
  KernelSpec spec;
  spec.path = path;
  spec.dir = std::filesystem::path(path).parent_path().string();
  if (spec.dir.empty()) spec.dir = ".";
  SpecParser parser(path, &spec);
  size_t line = 0;
  for (std::string_view l : Split(text, '\n')) {
    KT_RETURN_IF_ERROR(parser.Line(++line, l));
  }
  KT_RETURN_IF_ERROR(parser.Finish());
  return spec;
}

Result<std::string> KernelSpecPath(const std::string& name_or_path,
                                   const std::string& kernels_dir) {
  if (name_or_path.ends_with(".kspec")) return name_or_path;
  if (!IsIdentifier(name_or_path)) {
    return InvalidArgument("'" + name_or_path + "' is neither a kernel name nor a .kspec file");
  }
  return kernels_dir + "/" + name_or_path + "/" + name_or_path + ".kspec";
}

Result<KernelSpec> LoadKernelSpec(const std::string& name_or_path, const std::string& kernels_dir) {
  KT_ASSIGN_OR_RETURN(std::string path, KernelSpecPath(name_or_path, kernels_dir));
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return NotFound("no kernel spec " + path + ": " + text.status().message());
  return ParseKernelSpec(*text, path);
}

Result<std::vector<int64_t>> TensorDims(const TensorSpec& t,
                                        const std::vector<std::pair<std::string, int64_t>>& shape) {
  std::vector<int64_t> dims;
  for (const std::string& d : t.dims) {
    Result<int64_t> n = ParseInt64(d);
    if (n.ok()) {
      dims.push_back(*n);
      continue;
    }
    auto it = std::find_if(shape.begin(), shape.end(), [&](const auto& s) { return s.first == d; });
    if (it == shape.end()) return InvalidArgument("tensor " + t.name + ": no shape " + d);
    dims.push_back(it->second);
  }
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d <= 0) {
      return InvalidArgument("tensor " + t.name + ": dimension " + std::to_string(d) +
                             " is not positive");
    }
    if (elements > kMaxTensorElements / d) {
      return InvalidArgument("tensor " + t.name + " is too large for test data (more than 2^26 " +
                             "elements)");
    }
    elements *= d;
  }
  return dims;
}

Result<std::vector<std::string>> ExpandArgs(
    const KernelSpec& spec, const std::vector<std::pair<std::string, int64_t>>& shape) {
  std::vector<std::string> out;
  for (const std::string& a : spec.args) {
    std::string arg;
    for (size_t i = 0; i < a.size();) {
      if (a[i] != '{') {
        arg += a[i++];
        continue;
      }
      const size_t close = a.find('}', i);
      if (close == std::string::npos) return InvalidArgument("args '" + a + "': no '}'");
      const std::string name = a.substr(i + 1, close - i - 1);
      auto it =
          std::find_if(shape.begin(), shape.end(), [&](const auto& s) { return s.first == name; });
      if (it == shape.end()) {
        return InvalidArgument("args '" + a + "': no shape " + name);
      }
      arg += std::to_string(it->second);
      i = close + 1;
    }
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace ktune::host
