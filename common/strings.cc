#include "common/strings.h"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ktune {
namespace {

template <typename T>
Result<T> ParseNumber(std::string_view s, const char* what) {
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    return InvalidArgument("'" + std::string(s) + "' is not " + what);
  }
  return v;
}

}  // namespace

Result<int> ParseInt(std::string_view s) {
  return ParseNumber<int>(s, "an integer");
}
Result<int64_t> ParseInt64(std::string_view s) {
  return ParseNumber<int64_t>(s, "an integer");
}
Result<uint64_t> ParseUint64(std::string_view s) {
  return ParseNumber<uint64_t>(s, "a non-negative integer");
}
std::optional<double> ParseDoublePrefix(std::string_view s, size_t* consumed) {
  const size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
  if (sign >= s.size()) return std::nullopt;
  const char c = s[sign];
  // No leading space or '+', as std::from_chars.
  if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'i' && c != 'I' &&
      c != 'n' && c != 'N') {
    return std::nullopt;
  }
  // strtod reads "0x1p3" as hexadecimal; from_chars (general format) reads the "0" only.
  size_t cut = s.size();
  if (c == '0' && sign + 1 < s.size() && (s[sign + 1] == 'x' || s[sign + 1] == 'X')) {
    cut = sign + 1;
  }
  const std::string text(s.substr(0, cut));
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  // Beyond double's range: overflow, or underflow all the way to zero.
  if (errno == ERANGE && (v == 0 || std::isinf(v))) return std::nullopt;
  *consumed = static_cast<size_t>(end - text.c_str());
  return v;
}

Result<double> ParseDouble(std::string_view s) {
  size_t consumed = 0;
  const std::optional<double> v = ParseDoublePrefix(s, &consumed);
  if (!v || consumed != s.size())
    return InvalidArgument("'" + std::string(s) + "' is not a number");
  return *v;
}

namespace {

// A positive decimal: digits[0].digits[1..] x 10^exp.
struct Decimal {
  std::string digits;
  int exp = 0;
};

Decimal FromScientific(const char* text) {  // printf's "d.ddde+XX"
  Decimal d;
  const char* p = text;
  for (; *p != 'e'; ++p) {
    if (*p != '.') d.digits += *p;
  }
  d.exp = std::atoi(p + 1);
  return d;
}

std::string Scientific(const Decimal& d) {
  std::string s = d.digits.substr(0, 1);
  if (d.digits.size() > 1) s += "." + d.digits.substr(1);
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", d.exp < 0 ? '-' : '+', std::abs(d.exp));
  return s + exp;
}

bool ReadsBackAs(const std::string& text, double v) {
  return std::strtod(text.c_str(), nullptr) == v;
}

// One unit more in the last digit.
Decimal NextUp(Decimal d) {
  for (size_t i = d.digits.size(); i-- > 0;) {
    if (d.digits[i] != '9') {
      ++d.digits[i];
      return d;
    }
    d.digits[i] = '0';
  }
  d.digits.insert(0, "1");
  d.digits.pop_back();
  ++d.exp;
  return d;
}

// The fewest digits that read back as `v` (finite, not negative), and of those the decimal
// closest to `v`: printf rounds correctly, so its n-digit text is the closest n-digit decimal.
// Just below a power of two the doubles are twice as dense as just above, so that closest
// decimal may miss on the low side while the next one up, farther but on the roomier side, reads
// back.
Decimal Shortest(double v) {
  char text[40];
  for (int n = 1;; ++n) {
    std::snprintf(text, sizeof text, "%.*e", n - 1, v);
    const Decimal d = FromScientific(text);
    if (n == 17 || ReadsBackAs(text, v)) return d;
    if (std::strtod(text, nullptr) < v) {
      const Decimal up = NextUp(d);
      if (ReadsBackAs(Scientific(up), v)) return up;
    }
  }
}

}  // namespace

// As std::to_chars(double) formats (the shortest digits, fixed or scientific, whichever is
// shorter, fixed on a tie, integers in fixed notation exact), without its ~125 KB of tables,
// which a static agentd can spare: glibc's printf and strtod are linked anyway.
std::string FormatDouble(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  const std::string sign = std::signbit(v) ? "-" : "";
  if (std::isinf(v)) return sign + "inf";
  const double magnitude = std::fabs(v);
  const Decimal d = Shortest(magnitude);
  const int digits = static_cast<int>(d.digits.size());
  std::string fixed;
  if (d.exp >= digits - 1) {  // an integer: its exact digits
    char text[320];
    std::snprintf(text, sizeof text, "%.0f", magnitude);
    fixed = text;
  } else if (d.exp >= 0) {
    fixed = d.digits.substr(0, d.exp + 1) + "." + d.digits.substr(d.exp + 1);
  } else {
    fixed = "0." + std::string(-d.exp - 1, '0') + d.digits;
  }
  const std::string scientific = Scientific(d);
  return sign + (fixed.size() <= scientific.size() ? fixed : scientific);
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::string UtcText(int64_t unix_ms, bool compact) {
  using namespace std::chrono;
  const sys_time<milliseconds> t{milliseconds(unix_ms)};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss<milliseconds> hms{t - day};
  char text[48];
  std::snprintf(text, sizeof text,
                compact ? "%04d%02u%02uT%02d%02d%02d.%03dZ" : "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                static_cast<int>(hms.subseconds().count()));
  return text;
}

int64_t UnixNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::string UtcNowText(bool compact) {
  return UtcText(UnixNowNs() / 1'000'000, compact);
}

std::string FormatMiB(uint64_t bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

std::string AsciiUpper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> SplitWords(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\r\n\v\f";
  std::vector<std::string> out;
  size_t i = s.find_first_not_of(kBlanks);
  while (i != std::string_view::npos) {
    const size_t end = std::min(s.find_first_of(kBlanks, i), s.size());
    out.emplace_back(s.substr(i, end - i));
    i = s.find_first_not_of(kBlanks, end);
  }
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string EscapedText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f && c != '\\') {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace ktune
