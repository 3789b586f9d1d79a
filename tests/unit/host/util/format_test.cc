#include <doctest/doctest.h>

#include "host/util/format.h"

namespace ktune::host {
namespace {

TEST_CASE("numbers for people: counts, ratios, p-values, correlations, percentages") {
  CHECK(FormatNumber(1234) == "1234");
  CHECK(FormatNumber(96570000.5) == "96570000");  // the median of two counts: %.0f rounds to even
  CHECK(FormatNumber(12.345) == "12.35");
  CHECK(FormatNumber(0.54321) == "0.5432");
  CHECK(FormatPValue(0.00001) == "< 0.0001");
  CHECK(FormatPValue(0.12345) == "0.1235");
  CHECK(FormatRatio(12.34) == "12.3x");
  CHECK(FormatRatio(1.236) == "1.24x");
  CHECK(FormatCorrelation(0.8734) == "+0.873");
  CHECK(FormatPercent(12.46) == "12.5%");
}

TEST_CASE("times in the unit they read best in; other units as numbers") {
  CHECK(FormatTime(187.3e-6, "s") == "187.3 us");
  CHECK(FormatTime(1.2024e6, "ns") == "1.202 ms");
  CHECK(FormatTime(2.5, "s") == "2.5 s");
  CHECK(FormatTime(0, "ns") == "0 s");
  CHECK(FormatTime(1234, "cycles") == "1234 cycles");
  CHECK(FormatTime(0.5, "") == "0.5");
  CHECK(DisplayFor(5e5, "ns").name == std::string("us"));
  CHECK(DisplayFor(5e5, "ns").per_unit == doctest::Approx(1e-3));
}

}  // namespace
}  // namespace ktune::host
