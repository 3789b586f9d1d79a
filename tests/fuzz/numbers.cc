// Fuzzes the number reader and writer of common/strings.h against the standard library, which
// they stand in for: ParseDouble/ParseDoublePrefix (values in results files, kernel specs and a
// kernel's time line, all text from elsewhere) claim to read as std::from_chars does, through
// strtod; FormatDouble claims std::to_chars' shortest text.
//
// Input: the text to read; its first 8 bytes are also taken as a double's bits to write.
//
// Asserts, beyond no crash and no sanitizer report:
// - ParseDouble accepts exactly what std::from_chars reads whole (outside its range excepted:
//   from_chars says so, ParseDouble refuses), with the same value to the bit;
// - ParseDoublePrefix reads as many characters as std::from_chars does;
// - FormatDouble writes what std::to_chars writes, and ParseDouble reads it back to the bit.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "common/strings.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune {
namespace {

bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  }
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void CheckFormat(double v) {
  const std::string ours = FormatDouble(v);
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  FUZZ_CHECK(ec == std::errc());
  FUZZ_CHECK(ours == std::string_view(buf, end - buf));
  auto back = ParseDouble(ours);
  FUZZ_CHECK(back.ok() && SameDouble(*back, v));
}

}  // namespace
}  // namespace ktune

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  double expected = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), expected);
  auto parsed = ParseDouble(text);
  if (ec == std::errc() && end == text.data() + text.size()) {
    FUZZ_CHECK(parsed.ok() && SameDouble(*parsed, expected));
    CheckFormat(*parsed);
  } else {
    FUZZ_CHECK(!parsed.ok());
  }
  size_t consumed = 0;
  const auto prefix = ParseDoublePrefix(text, &consumed);
  if (ec == std::errc()) {
    FUZZ_CHECK(prefix && consumed == static_cast<size_t>(end - text.data()) &&
               SameDouble(*prefix, expected));
  } else if (ec == std::errc::invalid_argument) {
    FUZZ_CHECK(!prefix);
  }
  if (size >= sizeof(double)) {
    double bits;
    std::memcpy(&bits, data, sizeof bits);
    CheckFormat(bits);
  }
  return 0;
}
