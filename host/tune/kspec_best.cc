#include "host/tune/kspec_best.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "host/tune/kspec.h"

namespace ktune::host {
namespace {

// A "best:" directive as the parser reads it: not a comment, "best" before the first colon.
bool IsBestLine(std::string_view line) {
  const std::string_view t = Trim(line);
  const size_t colon = t.find(':');
  return !t.starts_with("#") && colon != std::string_view::npos &&
         Trim(t.substr(0, colon)) == "best";
}

// The spec's lines without its best: line (and the --apply-best comment above it); where it
// stood, `replacement` (lines without their ending) when given, carrying over the old line's
// trailing comment. Line endings stay as they were; new lines take the file's (CRLF or LF).
std::string RewriteBest(std::string_view spec_text,
                        const std::optional<std::pair<std::string, std::string>>& replacement) {
  const std::string eol = spec_text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  std::vector<std::string_view> lines = Split(spec_text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the final line ending
  std::string out;
  bool placed = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    const bool cr = line.ends_with('\r');
    if (cr) line.remove_suffix(1);
    if (Trim(line).starts_with("# khost tune --apply-best") && i + 1 < lines.size() &&
        IsBestLine(lines[i + 1])) {
      continue;
    }
    if (IsBestLine(line)) {
      if (replacement && !placed) {
        std::string best = replacement->second;
        size_t hash = CommentStart(line);
        if (hash != std::string_view::npos) {
          while (hash > 0 && (line[hash - 1] == ' ' || line[hash - 1] == '\t')) --hash;
          best += std::string(line.substr(hash));
        }
        out += replacement->first + eol + best + eol;
      }
      placed = true;
      continue;
    }
    out += std::string(line) + (cr ? "\r\n" : "\n");
  }
  if (replacement && !placed) {
    out += eol + replacement->first + eol + replacement->second + eol;
  }
  return out;
}

}  // namespace

std::string WithBestLine(std::string_view spec_text, const std::string& comment,
                         const std::string& best_line) {
  return RewriteBest(spec_text, std::make_pair(comment, best_line));
}

std::string WithoutBestLine(std::string_view spec_text) {
  return RewriteBest(spec_text, std::nullopt);
}

}  // namespace ktune::host
