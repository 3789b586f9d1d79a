#include "host/results/evaluations.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/strings.h"

namespace ktune::host {
namespace {

constexpr std::string_view kFirstLine = "# ktune evaluations 1";
constexpr const char* kTail[] = {"time_ns", "status", "run"};

// Free text on one line: control characters (line breaks, tabs) become spaces.
std::string OneLine(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

// Free text as one CSV field: one line, commas become ';'.
std::string Field(std::string_view text) {
  std::string out = OneLine(text);
  std::replace(out.begin(), out.end(), ',', ';');
  return out;
}

Status LineError(size_t line, const std::string& what) {
  return InvalidArgument("evaluations line " + std::to_string(line) + ": " + what);
}

}  // namespace

std::string FormatEvaluationsHeader(const std::vector<std::string>& comments,
                                    const std::vector<std::string>& names) {
  std::string out = std::string(kFirstLine) + "\n";
  for (const std::string& c : comments) out += "# " + OneLine(c) + "\n";
  std::vector<std::string> header = names;
  header.insert(header.end(), std::begin(kTail), std::end(kTail));
  return out + Join(header, ",") + "\n";
}

std::string FormatEvaluation(const Evaluation& e) {
  std::vector<std::string> fields;
  for (int64_t v : e.config) fields.push_back(std::to_string(v));
  fields.push_back(e.time_ns ? FormatDouble(*e.time_ns) : "");
  fields.push_back(Field(e.status));
  fields.push_back(Field(e.run));
  return Join(fields, ",") + "\n";
}

namespace {

// The header line (number `n`): the parameters' names, then time_ns,status,run.
Result<std::vector<std::string>> ParseHeader(std::string_view line, size_t n) {
  const std::vector<std::string_view> header = Split(line, ',');
  const size_t params = header.size() < 3 ? 0 : header.size() - 3;
  if (params == 0 || header[params] != kTail[0] || header[params + 1] != kTail[1] ||
      header[params + 2] != kTail[2]) {
    return LineError(n, "the header must be the parameters, then time_ns,status,run");
  }
  std::vector<std::string> names;
  for (size_t p = 0; p < params; ++p) {
    if (header[p].empty()) return LineError(n, "a parameter without a name");
    if (std::count(header.begin(), header.begin() + p, header[p]) > 0) {
      return LineError(n, "parameter " + std::string(header[p]) + " is named twice");
    }
    names.emplace_back(header[p]);
  }
  return names;
}

// One evaluation's line (number `n`) under the header's `names`.
Result<Evaluation> ParseRow(std::string_view line, size_t n,
                            const std::vector<std::string>& names) {
  const size_t params = names.size();
  const std::vector<std::string_view> f = Split(line, ',');
  if (f.size() != params + 3) {
    return LineError(n, std::to_string(f.size()) + " fields, not " + std::to_string(params + 3));
  }
  Evaluation e;
  for (size_t p = 0; p < params; ++p) {
    auto v = ParseInt64(f[p]);
    if (!v.ok()) return LineError(n, names[p] + " is not an integer");
    e.config.push_back(*v);
  }
  e.status = std::string(f[params + 1]);
  e.run = std::string(f[params + 2]);
  if (e.status.empty()) return LineError(n, "no status");
  if (e.status == "ok") {
    auto t = ParseDouble(f[params]);
    if (!t.ok() || !std::isfinite(*t) || *t <= 0) {
      return LineError(n, "an ok configuration needs a positive time_ns");
    }
    e.time_ns = *t;
  } else if (!f[params].empty()) {
    return LineError(n, "a configuration that is not ok has no time");
  }
  return e;
}

}  // namespace

Result<Evaluations> ParseEvaluations(std::string_view text) {
  Evaluations out;
  std::vector<std::string_view> lines = Split(text, '\n');
  // Split leaves "" after a final '\n'; anything else there is a torn line.
  if (!lines.empty()) {
    if (!lines.back().empty()) out.torn_lines = 1;
    lines.pop_back();
  }
  if (lines.empty() || lines[0] != kFirstLine) {
    return InvalidArgument("not a ktune evaluations file: the first line must be '" +
                           std::string(kFirstLine) + "'");
  }
  for (size_t n = 1; n < lines.size(); ++n) {
    if (lines[n].ends_with('\r')) lines[n].remove_suffix(1);  // CRLF, as an editor may save it
    if (std::any_of(lines[n].begin(), lines[n].end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
      return LineError(n + 1, "a control character");
    }
  }
  size_t i = 1;
  for (; i < lines.size() && lines[i].substr(0, 2) == "# "; ++i) {
    out.comments.emplace_back(lines[i].substr(2));
  }
  if (i == lines.size()) return InvalidArgument("evaluations file has no header line");
  KT_ASSIGN_OR_RETURN(out.names, ParseHeader(lines[i], i + 1));
  std::set<std::vector<int64_t>> seen;
  for (++i; i < lines.size(); ++i) {
    KT_ASSIGN_OR_RETURN(Evaluation e, ParseRow(lines[i], i + 1, out.names));
    if (!seen.insert(e.config).second) {
      if (out.duplicate_lines++ == 0) out.first_duplicate_line = i + 1;
      continue;
    }
    out.rows.push_back(std::move(e));
  }
  return out;
}

std::string EvaluationsWarning(const Evaluations& evaluations) {
  std::string out;
  if (evaluations.duplicate_lines) {
    out = "ignored " + std::to_string(evaluations.duplicate_lines) + " line" +
          (evaluations.duplicate_lines == 1 ? "" : "s") +
          " giving a configuration again, from line " +
          std::to_string(evaluations.first_duplicate_line) +
          " (a search measures each configuration once; its first line is kept)";
  }
  if (evaluations.torn_lines) {
    out += std::string(out.empty() ? "" : "; ") +
           "ignored an unterminated last line (the search stopped while writing it)";
  }
  return out;
}

std::string ConfigText(const std::vector<std::string>& names, const std::vector<int64_t>& config) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < names.size() && i < config.size(); ++i) {
    parts.push_back(names[i] + "=" + std::to_string(config[i]));
  }
  return Join(parts, " ");
}

}  // namespace ktune::host
