#include "host/corpus.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>

#include "common/csv.h"
#include "common/strings.h"
#include "host/pysource.h"

namespace ktune {

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

class Extractor {
 public:
  Result<std::vector<CorpusKernel>> Run(std::string_view source) {
    KT_RETURN_IF_ERROR(Module(source, 0, ""));
    return std::move(kernels_);
  }

 private:
  // The kernels of `module`, whose line 1 is line `offset` + 1 of the file. `given_name` is
  // async_compile.triton's name for a kernel module ("" for the file itself).
  Status Module(std::string_view module, int offset, const std::string& given_name) {
    auto lines = PyLogicalLines(module);
    if (!lines.ok()) {
      return offset == 0
                 ? lines.status()
                 : InvalidArgument("in the kernel source that starts on line " +
                                   std::to_string(offset + 1) + ": " + lines.status().message());
    }
    const std::vector<std::string_view> physical = Split(module, '\n');
    auto text_of = [&](int first, int last) {
      std::string out;
      for (int l = first; l <= last && l <= static_cast<int>(physical.size()); ++l) {
        out += std::string(physical[static_cast<size_t>(l - 1)]) + "\n";
      }
      return out;
    };
    std::vector<Import> imports;
    for (const PyLogicalLine& l : *lines) {
      if (auto imp = ImportOf(l)) imports.push_back(*imp);
    }
    const auto& ls = *lines;
    for (size_t k = 0; k < ls.size(); ++k) {
      KT_RETURN_IF_ERROR(KernelModules(ls[k], offset));
      if (ls[k].indent != 0 || !Is(ls[k].tokens[0], "@")) continue;
      // Decorators, then the def they decorate, then its indented body.
      std::vector<std::string> decorators;
      size_t d = k;
      while (d < ls.size() && ls[d].indent == 0 && Is(ls[d].tokens[0], "@")) {
        decorators.push_back(DecoratorName(ls[d]));
        ++d;
      }
      if (d == ls.size() || ls[d].indent != 0 || !IsDef(ls[d])) {
        k = d == ls.size() ? d : d - 1;
        continue;
      }
      size_t end = d + 1;
      while (end < ls.size() && ls[end].indent > 0) {
        KT_RETURN_IF_ERROR(KernelModules(ls[end], offset));
        ++end;
      }
      bool triton = false;
      for (const std::string& name : decorators) triton = triton || TritonDecorator(name);
      if (triton) {
        std::set<std::string> used;
        for (size_t i = k; i < end; ++i) {
          for (const PyToken& t : ls[i].tokens) {
            if (t.kind == PyToken::kName) used.insert(t.text);
          }
        }
        std::string header;
        for (const Import& imp : imports) {
          bool needed = offset != 0;  // a kernel module's imports are all its own
          for (const std::string& b : imp.binds) needed = needed || b == "*" || used.count(b);
          if (needed) header += text_of(imp.first_line, imp.last_line);
        }
        CorpusKernel kernel;
        const std::string def_name = DefName(ls[d]);
        kernel.name = given_name.empty() ? def_name : given_name;
        kernel.kind = TritonKernelKind(kernel.name, decorators);
        kernel.first_line = offset + ls[k].first_line;
        kernel.last_line = offset + ls[end - 1].last_line;
        kernel.length_lines = static_cast<size_t>(kernel.last_line - kernel.first_line + 1);
        kernel.source = header + (header.empty() ? "" : "\n") +
                        text_of(ls[k].first_line, ls[end - 1].last_line);
        kernels_.push_back(std::move(kernel));
      }
      k = end - 1;
    }
    return Status::Ok();
  }

  // Kernel modules of Inductor in `line`: async_compile.triton(NAME, SOURCE, ...).
  Status KernelModules(const PyLogicalLine& line, int offset) {
    const auto& t = line.tokens;
    for (size_t i = 0; i + 3 < t.size(); ++i) {
      if (!(Is(t[i], "async_compile") && Is(t[i + 1], ".") && Is(t[i + 2], "triton") &&
            Is(t[i + 3], "("))) {
        continue;
      }
      if (i + 6 < t.size() && t[i + 4].kind == PyToken::kString && Is(t[i + 5], ",") &&
          t[i + 6].kind == PyToken::kString) {
        KT_RETURN_IF_ERROR(
            Module(t[i + 6].contents, offset + t[i + 6].line - 1, t[i + 4].contents));
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
      out += t.kind == PyToken::kName && generated.count(t.text) ? "kernel" : t.text;
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
  return doc.dump(2) + "\n";
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
                                  const SampleOptions& options) {
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
  auto draw = [&](std::vector<size_t>& pool, size_t k) {
    for (size_t i = 0; i < k; ++i) {  // a partial Fisher-Yates shuffle
      const size_t j = i + static_cast<size_t>(rng() % (pool.size() - i));
      std::swap(pool[i], pool[j]);
      chosen.push_back(pool[i]);
    }
  };
  draw(long_pool, want_long);
  draw(rest, want_rest);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace ktune
