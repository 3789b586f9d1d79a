#include <doctest/doctest.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "common/strings.h"

namespace ktune {
namespace {

std::string ToChars(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  REQUIRE(ec == std::errc());
  return std::string(buf, ptr);
}

TEST_CASE("FormatDouble: the shortest text that reads back, as std::to_chars writes it") {
  CHECK(FormatDouble(0.012) == "0.012");
  CHECK(FormatDouble(5e-05) == "5e-05");
  CHECK(FormatDouble(123) == "123");
  CHECK(FormatDouble(120000) == "120000");
  CHECK(FormatDouble(100000) == "1e+05");
  CHECK(FormatDouble(0.0) == "0");
  CHECK(FormatDouble(-0.0) == "-0");
  CHECK(FormatDouble(-2.5) == "-2.5");
  CHECK(FormatDouble(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(FormatDouble(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(FormatDouble(std::nan("")) == "nan");
  // Integers beyond 2^53 in fixed notation are written exactly, as to_chars does.
  CHECK(FormatDouble(7624241668674778112.0) == "7624241668674778112");
  // Just below a power of two the closest 16-digit decimal does not read back; the one above
  // does (to_chars' choice too).
  CHECK(FormatDouble(std::ldexp(1.0, -1017)) == "7.120236347223045e-307");

  // Every power of two and ten, and values drawn from several distributions, against to_chars.
  int compared = 0, differ = 0;
  auto compare = [&](double v) {
    ++compared;
    const std::string mine = FormatDouble(v), theirs = ToChars(v);
    if (mine != theirs && ++differ <= 5) CHECK_MESSAGE(mine == theirs, v);
    CHECK(std::strtod(mine.c_str(), nullptr) == v);
  };
  for (int k = -1074; k <= 1023; ++k) {
    compare(std::ldexp(1.0, k));
    compare(-std::ldexp(1.0, k));
  }
  for (int k = -323; k <= 308; ++k) compare(std::pow(10.0, k));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isfinite(v)) compare(v);
  }
  std::uniform_real_distribution<double> uniform(0, 1000);
  for (int i = 0; i < 20000; ++i) compare(uniform(rng));
  for (int i = 0; i < 20000; ++i) compare(std::round(uniform(rng) * 1000) / 1000);
  for (int i = 0; i < 20000; ++i) compare(static_cast<double>(rng() >> (rng() % 64)));
  CHECK(compared > 80000);
  CHECK(differ == 0);
}

TEST_CASE("number parsing takes the whole text or nothing") {
  CHECK(ParseInt("42").value() == 42);
  CHECK_FALSE(ParseInt("42x").ok());
  CHECK_FALSE(ParseInt("").ok());
  CHECK_FALSE(ParseUint64("-1").ok());
  CHECK(ParseDouble("5e-05").value() == 5e-05);
  CHECK_FALSE(ParseDouble(" 1").ok());
  CHECK(ParseInt("x").status().message() == "'x' is not an integer");
  CHECK(ParseDouble("x").status().message() == "'x' is not a number");
}

TEST_CASE("doubles read as std::from_chars reads them, through strtod") {
  for (const char* text : {"0", "-2.5", ".5", "1e5", "1E-3", "5e-324", "1.7976931348623157e308",
                           "123456789012345678901234567890", "inf", "-Infinity", "nan"}) {
    double expected = 0;
    const auto [ptr, ec] = std::from_chars(text, text + std::strlen(text), expected);
    REQUIRE(ec == std::errc());
    auto mine = ParseDouble(text);
    REQUIRE_MESSAGE(mine.ok(), text);
    CHECK((std::isnan(expected) ? std::isnan(*mine) : *mine == expected));
  }
  // No leading space or '+', no hexadecimal, nothing out of range, nothing left over.
  for (const char* text :
       {" 1", "+1", "0x10", "1e999", "-1e999", "1e-400", "1.5.", "", "-", "e5"}) {
    CHECK_FALSE_MESSAGE(ParseDouble(text).ok(), text);
  }
  size_t consumed = 0;
  CHECK(*ParseDoublePrefix("0x1p3", &consumed) == 0);
  CHECK(consumed == 1);  // the "0", as from_chars
  CHECK(*ParseDoublePrefix("12.5 ms", &consumed) == 12.5);
  CHECK(consumed == 4);
  CHECK_FALSE(ParseDoublePrefix("ms", &consumed).has_value());
}

TEST_CASE("UtcText: ISO 8601 in UTC to the millisecond, extended and basic") {
  CHECK(UtcText(0, false) == "1970-01-01T00:00:00.000Z");
  CHECK(UtcText(0, true) == "19700101T000000.000Z");
  // date -u -d @1795590902 +%FT%T: 2026-11-25T07:15:02 (the hour this was written).
  CHECK(UtcText(1795590902123, false) == "2026-11-25T07:15:02.123Z");
  CHECK(UtcText(1795590902123, true) == "20261125T071502.123Z");
  // A leap day, the last millisecond of a leap year, and before 1970.
  CHECK(UtcText(951782400000, false) == "2000-02-29T00:00:00.000Z");
  CHECK(UtcText(1735689599999, false) == "2024-12-31T23:59:59.999Z");
  CHECK(UtcText(-1, false) == "1969-12-31T23:59:59.999Z");
  CHECK(UtcText(-86400000LL * 365, false) == "1969-01-01T00:00:00.000Z");
}

TEST_CASE("UtcNowText: now, in the one layout") {
  const std::string t = UtcNowText(true);  // 20261125T071502.123Z
  REQUIRE(t.size() == 20);
  CHECK(t[8] == 'T');
  CHECK(t[15] == '.');
  CHECK(t.back() == 'Z');
  for (size_t i : {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 16, 17, 18}) {
    CHECK(std::isdigit(static_cast<unsigned char>(t[i])));
  }
  CHECK(UtcNowText(false).size() == 24);  // 2026-11-25T07:15:02.123Z
}

TEST_CASE("FormatMiB: two decimals of 2^20 bytes") {
  CHECK(FormatMiB(0) == "0.00 MiB");
  CHECK(FormatMiB(1 << 20) == "1.00 MiB");
  CHECK(FormatMiB(3 << 19) == "1.50 MiB");
  CHECK(FormatMiB(8192ull << 20) == "8192.00 MiB");
}

TEST_CASE("SplitWords: runs of spaces, tabs and line ends separate words") {
  CHECK(SplitWords("a b") == std::vector<std::string>{"a", "b"});
  CHECK(SplitWords("  -O2\t-march=rv64gcv \t\r\n x  ") ==
        std::vector<std::string>{"-O2", "-march=rv64gcv", "x"});
  CHECK(SplitWords("").empty());
  CHECK(SplitWords(" \t ").empty());
  CHECK(SplitWords("one") == std::vector<std::string>{"one"});
}

// Found by the bad-input campaign (issue 33): control bytes from a spec reached the terminal.
TEST_CASE("EscapedText: control bytes and backslashes as C escapes, other bytes as they are") {
  CHECK(EscapedText("plain text, UTF-8: \xc3\xa9") == "plain text, UTF-8: \xc3\xa9");
  CHECK(EscapedText("a\x1b[31mred\x07") == "a\\x1b[31mred\\x07");
  CHECK(EscapedText("tab\tline\ncr\r") == "tab\\tline\\ncr\\r");
  CHECK(EscapedText("back\\slash") == "back\\\\slash");
  CHECK(EscapedText(std::string("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  CHECK(EscapedText("").empty());
}

}  // namespace
}  // namespace ktune
