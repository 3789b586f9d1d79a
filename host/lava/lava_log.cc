#include "host/lava/lava_log.h"

#include <cstdint>

namespace ktune::host {
namespace {

// Appends code point `cp` as UTF-8.
void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The value of `n` hex digits at `s`, or nullopt.
std::optional<uint32_t> Hex(std::string_view s, size_t n) {
  if (s.size() < n) return std::nullopt;
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

// YAML's escape `\e` decoded into `out`: 0 when it is whole, else how many hex digits follow
// (x: 2, u: 4, U: 8); -1 when it is not an escape.
int Unescape(char e, std::string& out) {
  using namespace std::string_view_literals;
  static constexpr std::string_view kFrom = "0abtnvfre \"/\\\t"sv;
  static constexpr std::string_view kTo = "\0\a\b\t\n\v\f\r\x1b \"/\\\t"sv;  // a NUL first
  static_assert(kFrom.size() == kTo.size());
  if (const size_t at = kFrom.find(e); at != std::string_view::npos) {
    out += kTo[at];
    return 0;
  }
  switch (e) {
    case 'N':  // next line, no-break space, line and paragraph separators
      AppendUtf8(out, 0x85);
      return 0;
    case '_':
      AppendUtf8(out, 0xA0);
      return 0;
    case 'L':
      AppendUtf8(out, 0x2028);
      return 0;
    case 'P':
      AppendUtf8(out, 0x2029);
      return 0;
    case 'x':
      return 2;
    case 'u':
      return 4;
    case 'U':
      return 8;
  }
  return -1;
}

// A YAML double-quoted scalar at the front of `s` (which starts with '"'): its value, and `s`
// moved past it; nullopt when it is not one.
std::optional<std::string> Quoted(std::string_view& s) {
  std::string out;
  size_t i = 1;
  while (i < s.size() && s[i] != '"') {
    if (s[i] != '\\') {
      out += s[i++];
      continue;
    }
    if (++i >= s.size()) return std::nullopt;
    const int digits = Unescape(s[i++], out);
    if (digits < 0) return std::nullopt;
    if (digits == 0) continue;
    const std::optional<uint32_t> cp = Hex(s.substr(i), static_cast<size_t>(digits));
    if (!cp || *cp > 0x10FFFF) return std::nullopt;
    AppendUtf8(out, *cp);
    i += static_cast<size_t>(digits);
  }
  if (i >= s.size()) return std::nullopt;
  s.remove_prefix(i + 1);
  return out;
}

void SkipSpaces(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
}

// Skips a flow mapping or sequence at the front of `s` (a result's message), quoted scalars in
// it included; false when it does not close.
bool SkipFlow(std::string_view& s) {
  int depth = 0;
  while (!s.empty()) {
    const char c = s.front();
    if (c == '"') {
      if (!Quoted(s)) return false;
      continue;
    }
    s.remove_prefix(1);
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return true;
  }
  return false;
}

}  // namespace

std::optional<LavaLogLine> ParseLavaLogLine(std::string_view s) {
  if (!s.starts_with("- {")) return std::nullopt;
  s.remove_prefix(3);
  LavaLogLine line;
  bool has_level = false;
  while (true) {
    SkipSpaces(s);
    if (s.empty() || s.front() != '"') return std::nullopt;
    const std::optional<std::string> key = Quoted(s);
    if (!key || !s.starts_with(":")) return std::nullopt;
    s.remove_prefix(1);
    SkipSpaces(s);
    if (s.empty()) return std::nullopt;
    if (s.front() == '"') {
      std::optional<std::string> value = Quoted(s);
      if (!value) return std::nullopt;
      if (*key == "lvl") {
        line.level = std::move(*value);
        has_level = true;
      } else if (*key == "msg") {
        line.message = std::move(*value);
      }
    } else if (!SkipFlow(s)) {
      return std::nullopt;
    }
    SkipSpaces(s);
    if (s.starts_with(",")) {
      s.remove_prefix(1);
      continue;
    }
    if (s.starts_with("}")) break;
    return std::nullopt;
  }
  if (!has_level) return std::nullopt;
  return line;
}

std::vector<LavaLogLine> ParseLavaLog(std::string_view text, size_t* complete_lines) {
  std::vector<LavaLogLine> out;
  size_t lines = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    if (end == std::string_view::npos) break;
    ++lines;
    if (auto line = ParseLavaLogLine(text.substr(at, end - at))) out.push_back(std::move(*line));
    at = end + 1;
  }
  if (complete_lines) *complete_lines = lines;
  return out;
}

std::optional<HostPort> AgentdListening(std::string_view line) {
  constexpr std::string_view kSays = " listening on ";
  const size_t agentd = line.find("agentd ");
  if (agentd == std::string_view::npos) return std::nullopt;
  const size_t at = line.find(kSays, agentd);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + kSays.size());
  rest = rest.substr(0, rest.find_first_of(" \r\n"));
  auto hp = ParseHostPort(rest);
  if (!hp.ok()) return std::nullopt;
  return *hp;
}

}  // namespace ktune::host
