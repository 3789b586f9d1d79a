#include <doctest/doctest.h>

#include <cmath>

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

}  // namespace
}  // namespace ktune
