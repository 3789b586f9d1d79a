#include "common/strings.h"

#include <charconv>

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
Result<double> ParseDouble(std::string_view s) {
  return ParseNumber<double>(s, "a number");
}

std::string FormatDouble(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 64 bytes always suffice for a double
  return std::string(buf, ptr);
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

}  // namespace ktune
