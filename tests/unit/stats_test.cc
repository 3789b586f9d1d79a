#include <doctest/doctest.h>

#include <cmath>

#include "host/progress.h"
#include "host/stats.h"

namespace ktune {
namespace {

TEST_CASE("median, mean, min and max over repetitions, with their edge cases") {
  CHECK(*Median({3, 1, 2}) == 2);
  CHECK(*Median({4, 1, 3, 2}) == 2.5);
  CHECK(*Mean({1, 2, 3, 6}) == 3);
  CHECK(*Min({5, -1, 2}) == -1);
  CHECK(*Max({5, -1, 2}) == 5);
  // One value is every statistic; all equal values too.
  CHECK(*Median({7}) == 7);
  CHECK(*Mean({7, 7, 7}) == 7);
  // No value: no statistic.
  CHECK_FALSE(Median({}).has_value());
  CHECK_FALSE(Mean({}).has_value());
  // NaN is skipped.
  CHECK(*Median({NAN, 1, 3}) == 2);
  CHECK_FALSE(Max({NAN}).has_value());
}

TEST_CASE("ETAs read as minutes:seconds, or hours:minutes:seconds") {
  CHECK(FormatEta(0) == "0:00");
  CHECK(FormatEta(65.4) == "1:05");
  CHECK(FormatEta(43203) == "12:00:03");
  CHECK(FormatEta(-3) == "0:00");
}

}  // namespace
}  // namespace ktune
