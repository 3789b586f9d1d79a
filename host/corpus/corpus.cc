#include "host/corpus/corpus.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>

#include "common/csv.h"
#include "common/random.h"
#include "common/strings.h"
#include "host/corpus/pysource.h"

namespace ktune::host {

namespace {

bool Is(const PyToken& t, std::string_view text) {
  return t.kind != PyToken::kString && t.text == text;
}

// A decorator's dotted name: "triton.jit" of "@triton.jit(do_not_specialize=...)".
std::string DecoratorName(const PyLogicalLine& line) {
  std::string name;
  for (size_t i = 1; i < line.tokens.size(); ++i) {
    const PyToken& t = line.tokens[i];
    if (t.kind != PyToken::kName && !Is(t, ".")) break;
    name += t.text;
  }
  return name;
}

bool TritonDecorator(const std::string& name) {
  return name.starts_with("triton.") || name.starts_with("triton_heuristics.");
}

bool IsDef(const PyLogicalLine& line) {
  const auto& t = line.tokens;
  return (!t.empty() && Is(t[0], "def")) || (t.size() > 1 && Is(t[0], "async") && Is(t[1], "def"));
}

std::string DefName(const PyLogicalLine& line) {
  const auto& t = line.tokens;
  const size_t at = Is(t[0], "async") ? 2 : 1;
  return at < t.size() && t[at].kind == PyToken::kName ? t[at].text : "";
}

// A top-level import statement and the names it binds ("*" for a star import).
struct Import {
  int first_line, last_line;
  std::set<std::string> binds;
};

std::optional<Import> ImportOf(const PyLogicalLine& line) {
  const auto& t = line.tokens;
  if (line.indent != 0 || t.empty() || !(Is(t[0], "import") || Is(t[0], "from"))) {
    return std::nullopt;
  }
  Import imp{line.first_line, line.last_line, {}};
  size_t i = 1;
  if (Is(t[0], "from")) {
    while (i < t.size() && !Is(t[i], "import")) ++i;
    ++i;
  }
  // Comma-separated "a.b.c [as d]" (or, after from, "x [as y]"), perhaps in parentheses.
  while (i < t.size()) {
    if (Is(t[i], "(") || Is(t[i], ")") || Is(t[i], ",")) {
      ++i;
      continue;
    }
    if (Is(t[i], "*")) {
      imp.binds.insert("*");
      ++i;
      continue;
    }
    const std::string first = t[i].text;
    while (i < t.size() && !Is(t[i], ",") && !Is(t[i], ")") && !Is(t[i], "as")) ++i;
    if (i < t.size() && Is(t[i], "as")) {
      if (i + 1 < t.size() && t[i + 1].kind == PyToken::kName) imp.binds.insert(t[i + 1].text);
      i += 2;
    } else {
      imp.binds.insert(first);  // "import a.b" binds a
    }
  }
  return imp;
}

// A top-level def with a Triton decorator: its logical lines [first, end), decorators first.
struct TritonDef {
  size_t first, def_line, end;
  std::vector<std::string> decorators;
};

std::vector<TritonDef> FindTritonDefs(const std::vector<PyLogicalLine>& ls) {
  std::vector<TritonDef> defs;
  for (size_t k = 0; k < ls.size(); ++k) {
    if (ls[k].indent != 0 || !Is(ls[k].tokens[0], "@")) continue;
    TritonDef def{k, k, k, {}};
    size_t d = k;
    while (d < ls.size() && ls[d].indent == 0 && Is(ls[d].tokens[0], "@")) {
      def.decorators.push_back(DecoratorName(ls[d++]));
    }
    if (d == ls.size() || ls[d].indent != 0 || !IsDef(ls[d])) {
      k = d - 1;
      continue;
    }
    def.def_line = d;
    def.end = d + 1;
    while (def.end < ls.size() && ls[def.end].indent > 0) ++def.end;
    k = def.end - 1;
    if (std::any_of(def.decorators.begin(), def.decorators.end(), TritonDecorator)) {
      defs.push_back(std::move(def));
    }
  }
  return defs;
}

// A module being cut into kernels: its logical lines, its text line by line (the file's line
// `first_line` is its first) and its imports by the names they bind.
class ModuleView {
 public:
  ModuleView(std::string_view module, const std::vector<PyLogicalLine>& ls, int first_line)
      : ls_(ls), physical_(Split(module, '\n')), first_line_(first_line) {
    if (!physical_.empty() && physical_[0].starts_with("\xEF\xBB\xBF")) {
      physical_[0].remove_prefix(3);
    }
    for (const PyLogicalLine& l : ls) {
      if (auto imp = ImportOf(l)) {
        for (const std::string& b : imp->binds) importers_[b].push_back(imports_.size());
        imports_.push_back(std::move(*imp));
      }
    }
  }

  // The kernel of logical lines [first, end) with, before it, its imports: all of them
  // (`all_imports`, a kernel module's), else those binding a name it uses, and star imports.
  CorpusKernel Kernel(const std::string& name, size_t first, size_t end,
                      const std::vector<std::string>& decorators, bool all_imports) const {
    std::string header;
    for (size_t i : ImportsOf(first, end, all_imports)) {
      header += Text(imports_[i].first_line, imports_[i].last_line);
    }
    CorpusKernel kernel;
    kernel.name = name;
    kernel.kind = TritonKernelKind(name, decorators);
    kernel.first_line = ls_[first].first_line;
    kernel.last_line = ls_[end - 1].last_line;
    kernel.length_lines = static_cast<size_t>(kernel.last_line - kernel.first_line + 1);
    kernel.source =
        header + (header.empty() ? "" : "\n") + Text(kernel.first_line, kernel.last_line);
    return kernel;
  }

 private:
  // The file's lines first..last.
  std::string Text(int first, int last) const {
    std::string out;
    for (int l = first; l <= last && l - first_line_ < static_cast<int>(physical_.size()); ++l) {
      out += std::string(physical_[static_cast<size_t>(l - first_line_)]) + "\n";
    }
    return out;
  }

  // The imports a kernel of lines [first, end) needs, by position.
  std::set<size_t> ImportsOf(size_t first, size_t end, bool all_imports) const {
    std::set<size_t> needed;
    if (all_imports) {
      for (size_t i = 0; i < imports_.size(); ++i) needed.insert(i);
      return needed;
    }
    auto need = [&](const std::string& bound) {
      if (auto it = importers_.find(bound); it != importers_.end()) {
        needed.insert(it->second.begin(), it->second.end());
      }
    };
    need("*");
    for (size_t i = first; i < end; ++i) {
      for (const PyToken& t : ls_[i].tokens) {
        if (t.kind == PyToken::kName) need(t.text);
      }
    }
    return needed;
  }

  const std::vector<PyLogicalLine>& ls_;
  std::vector<std::string_view> physical_;
  const int first_line_;
  std::vector<Import> imports_;
  std::map<std::string, std::vector<size_t>> importers_;  // bound name -> its imports
};

class Extractor {
 public:
  Result<std::vector<CorpusKernel>> Run(std::string_view source) {
    KT_RETURN_IF_ERROR(Module(source, 1, nullptr));
    // Kernel modules are read before the defs around them: back into the file's order.
    std::stable_sort(
        kernels_.begin(), kernels_.end(),
        [](const CorpusKernel& a, const CorpusKernel& b) { return a.first_line < b.first_line; });
    return std::move(kernels_);
  }

 private:
  // The kernels of `module`, whose first line is line `first_line` of the file. `given_name` is
  // async_compile.triton's name for a kernel module, null for the file itself. Each Triton def
  // of the file is a kernel with the imports it uses; a kernel module is one kernel, from its
  // first Triton def to its last (the kernel and the helpers it calls), with all its imports.
  Status Module(std::string_view module, int first_line, const std::string* given_name) {
    auto lines = PyLogicalLines(module, first_line);
    if (!lines.ok()) {
      if (!given_name) return lines.status();
      return InvalidArgument(lines.status().message() + " (in the kernel source of '" +
                             *given_name + "', which starts on line " + std::to_string(first_line) +
                             ")");
    }
    const auto& ls = *lines;
    for (const PyLogicalLine& l : ls) KT_RETURN_IF_ERROR(KernelModules(l));
    const std::vector<TritonDef> defs = FindTritonDefs(ls);
    if (defs.empty()) return Status::Ok();
    const ModuleView view(module, ls, first_line);
    if (given_name) {
      std::vector<std::string> decorators;
      for (const TritonDef& def : defs) {
        decorators.insert(decorators.end(), def.decorators.begin(), def.decorators.end());
      }
      kernels_.push_back(
          view.Kernel(*given_name, defs.front().first, defs.back().end, decorators, true));
    } else {
      for (const TritonDef& def : defs) {
        kernels_.push_back(
            view.Kernel(DefName(ls[def.def_line]), def.first, def.end, def.decorators, false));
      }
    }
    return Status::Ok();
  }

  // Kernel modules of Inductor in `line`: async_compile.triton(NAME, SOURCE, ...).
  Status KernelModules(const PyLogicalLine& line) {
    const auto& t = line.tokens;
    for (size_t i = 0; i + 3 < t.size(); ++i) {
      if (!(Is(t[i], "async_compile") && Is(t[i + 1], ".") && Is(t[i + 2], "triton") &&
            Is(t[i + 3], "("))) {
        continue;
      }
      if (i + 6 < t.size() && t[i + 4].kind == PyToken::kString && Is(t[i + 5], ",") &&
          t[i + 6].kind == PyToken::kString) {
        KT_RETURN_IF_ERROR(Module(t[i + 6].contents, t[i + 6].line, &t[i + 4].contents));
      }
    }
    return Status::Ok();
  }

  std::vector<CorpusKernel> kernels_;
};

}  // namespace

Result<std::vector<CorpusKernel>> ExtractTritonKernels(std::string_view python_source) {
  return Extractor().Run(python_source);
}

std::string TritonKernelKind(const std::string& name, const std::vector<std::string>& decorators) {
  static const std::pair<const char*, const char*> kByPrefix[] = {
      {"triton_poi_", "pointwise"},
      {"triton_red_", "reduction"},
      {"triton_per_", "persistent_reduction"},
      {"triton_tem_", "template"}};
  for (const auto& [prefix, kind] : kByPrefix) {
    if (name.starts_with(prefix)) return kind;
  }
  for (const std::string& d : decorators) {
    for (const char* kind : {"pointwise", "reduction", "persistent_reduction", "template"}) {
      if (d == std::string("triton_heuristics.") + kind) return kind;
    }
  }
  return "other";
}

std::string NormalizeKernel(std::string_view source, const std::string& name) {
  auto lines = PyLogicalLines(source);
  if (!lines.ok()) return std::string(source);
  std::set<std::string> generated = {name};
  for (const PyLogicalLine& l : *lines) {
    if (l.indent == 0 && IsDef(l)) generated.insert(DefName(l));
  }
  std::string out;
  for (const PyLogicalLine& l : *lines) {
    out += std::to_string(l.indent) + ":";
    for (const PyToken& t : l.tokens) {
      out += " ";
      // The name also comes as text: Inductor's inductor_meta={'kernel_name': 'triton_...'}.
      const bool named = t.kind == PyToken::kName     ? generated.count(t.text) > 0
                         : t.kind == PyToken::kString ? generated.count(t.contents) > 0
                                                      : false;
      out += named ? (t.kind == PyToken::kName ? "kernel" : "'kernel'") : t.text;
    }
    out += "\n";
  }
  return out;
}

std::optional<size_t> FirstNonTextByte(std::string_view bytes) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char c = b[i];
    if (c == 0) return i;
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The lead byte's length and the range its first continuation byte must fall in (which
    // excludes overlong forms, surrogates and code points past U+10FFFF).
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > bytes.size() || b[i + 1] < low || b[i + 1] > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if (b[i + k] < 0x80 || b[i + k] > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

std::string ModelOf(const std::string& debug_dir, const std::string& file) {
  const std::vector<std::string_view> parts = Split(file, '/');
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i] == "torch_compile_debug" && !parts[i - 1].empty() && parts[i - 1] != ".") {
      return std::string(parts[i - 1]);
    }
  }
  std::string dir = debug_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string last = dir.substr(dir.rfind('/') + 1);
  return last.empty() || last == "." || last == ".." ? "model" : last;
}

namespace {

const char* const kIndexColumns[] = {"name",       "model",     "source_file",
                                     "first_line", "last_line", "length_lines",
                                     "kind",       "hash",      "file"};

}  // namespace

std::string CorpusIndexJson(const CorpusIndex& index) {
  nlohmann::json doc;
  doc["schema"] = 1;
  if (!index.sampled_with.empty()) doc["sampled_with"] = index.sampled_with;
  doc["kernels"] = nlohmann::json::array();
  for (const CorpusEntry& e : index.kernels) {
    doc["kernels"].push_back({{"name", e.name},
                              {"model", e.model},
                              {"source_file", e.source_file},
                              {"first_line", e.first_line},
                              {"last_line", e.last_line},
                              {"length_lines", e.length_lines},
                              {"kind", e.kind},
                              {"hash", e.hash},
                              {"file", e.file}});
  }
  // Paths need not be UTF-8; JSON must be: such bytes become U+FFFD (the CSV keeps them).
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string CorpusIndexCsv(const CorpusIndex& index) {
  std::string out =
      CsvJoin(std::vector<std::string>(std::begin(kIndexColumns), std::end(kIndexColumns))) + "\n";
  for (const CorpusEntry& e : index.kernels) {
    out += CsvJoin({e.name, e.model, e.source_file, std::to_string(e.first_line),
                    std::to_string(e.last_line), std::to_string(e.length_lines), e.kind, e.hash,
                    e.file}) +
           "\n";
  }
  return out;
}

Result<CorpusIndex> ParseCorpusIndex(std::string_view json_text) {
  const nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("schema", nlohmann::json()) != 1 || !doc.contains("kernels") ||
      !doc["kernels"].is_array()) {
    return InvalidArgument("not a khost corpus index (schema 1)");
  }
  CorpusIndex index;
  if (doc.contains("sampled_with")) {
    if (!doc["sampled_with"].is_string()) return InvalidArgument("sampled_with is not text");
    index.sampled_with = doc["sampled_with"].get<std::string>();
  }
  for (const nlohmann::json& k : doc["kernels"]) {
    const std::string at = "kernel " + std::to_string(index.kernels.size());
    if (!k.is_object()) return InvalidArgument(at + " is not an object");
    CorpusEntry e;
    for (auto [key, field] : {std::pair{"name", &e.name}, std::pair{"model", &e.model},
                              std::pair{"source_file", &e.source_file}, std::pair{"kind", &e.kind},
                              std::pair{"hash", &e.hash}, std::pair{"file", &e.file}}) {
      if (!k.contains(key) || !k[key].is_string()) return InvalidArgument(at + ": no " + key);
      *field = k[key].get<std::string>();
    }
    for (auto [key, field] :
         {std::pair{"first_line", &e.first_line}, std::pair{"last_line", &e.last_line}}) {
      if (!k.contains(key) || !k[key].is_number_integer()) {
        return InvalidArgument(at + ": no " + key);
      }
      *field = k[key].get<int>();
    }
    if (!k.contains("length_lines") || !k["length_lines"].is_number_unsigned()) {
      return InvalidArgument(at + ": no length_lines");
    }
    e.length_lines = k["length_lines"].get<size_t>();
    // The file is read relative to the index: never outside its directory.
    if (e.file.empty() || e.file.front() == '/' || e.file.find("..") != std::string::npos) {
      return InvalidArgument(at + ": file '" + e.file + "' is not inside the corpus");
    }
    index.kernels.push_back(std::move(e));
  }
  return index;
}

std::vector<size_t> SampleKernels(const std::vector<size_t>& lengths,
                                  const CorpusSampleOptions& options) {
  const size_t count = lengths.size();
  std::vector<size_t> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return lengths[a] > lengths[b]; });
  const size_t pool_size = std::min(
      count, static_cast<size_t>(std::ceil(options.long_pool * static_cast<double>(count))));
  std::vector<size_t> long_pool(order.begin(), order.begin() + static_cast<long>(pool_size));
  std::vector<size_t> rest(order.begin() + static_cast<long>(pool_size), order.end());
  const size_t n = std::min(options.n, count);
  size_t want_long = std::min<size_t>(
      n, static_cast<size_t>(std::llround(options.long_portion * static_cast<double>(n))));
  size_t want_rest = n - want_long;
  // A pool short of its share leaves the difference to the other.
  if (want_long > long_pool.size()) want_rest += want_long - long_pool.size();
  if (want_rest > rest.size()) want_long += want_rest - rest.size();
  want_long = std::min(want_long, long_pool.size());
  want_rest = std::min(want_rest, rest.size());

  std::mt19937_64 rng(options.seed);
  std::vector<size_t> chosen;
  // A partial Fisher-Yates shuffle, each draw UniformBelow's (the same on every machine). It drew
  // `rng() % n` before: the two differ only when a raw draw lands among the highest n (or fewer)
  // of the 2^64 values and is drawn again, a chance of at most n / 2^64 a draw (none in the first
  // 100,000 draws of seeds 0 to 999), so a seed's sample is the one it gave before.
  auto draw = [&](std::vector<size_t>& pool, size_t k) {
    for (size_t i = 0; i < k; ++i) {
      const size_t j = i + static_cast<size_t>(UniformBelow(rng, pool.size() - i));
      std::swap(pool[i], pool[j]);
      chosen.push_back(pool[i]);
    }
  };
  draw(long_pool, want_long);
  draw(rest, want_rest);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace ktune::host
