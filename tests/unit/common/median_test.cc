#include "common/median.h"

#include <doctest/doctest.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace ktune {
namespace {

TEST_CASE("the median, with its edge cases") {
  CHECK(*Median({3, 1, 2}) == 2);
  CHECK(*Median({4, 1, 3, 2}) == 2.5);
  CHECK(*Median({7}) == 7);
  CHECK_FALSE(Median({}).has_value());
  CHECK(*Median({NAN, 1, 3}) == 2);  // NaN is skipped
  CHECK(*Median({INFINITY, 1, 3, 5}) == 3);
}

TEST_CASE("the median's confidence interval from order statistics") {
  // n = 6: [x(1), x(6)] covers with 1 - 2/64; [x(2), x(5)] only 1 - 2 * 7/64.
  auto six = MedianConfidenceInterval({6, 1, 5, 2, 4, 3});
  REQUIRE(six.has_value());
  CHECK(six->low == 1);
  CHECK(six->high == 6);
  CHECK(six->coverage == doctest::Approx(1 - 2.0 / 64));
  // n = 10: P(B <= 1) = 11/1024 keeps 95%; P(B <= 2) = 56/1024 does not: [x(2), x(9)].
  auto ten = MedianConfidenceInterval({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  REQUIRE(ten.has_value());
  CHECK(ten->low == 2);
  CHECK(ten->high == 9);
  CHECK(ten->coverage == doctest::Approx(1 - 22.0 / 1024));
  // n = 20: P(B <= 5) = 21700 / 2^20: [x(6), x(15)].
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  auto t = MedianConfidenceInterval(twenty);
  REQUIRE(t.has_value());
  CHECK(t->low == 6);
  CHECK(t->high == 15);
  CHECK(t->coverage == doctest::Approx(1 - 2 * 21700.0 / 1048576));
  // Too few values for 95%, and the threshold itself.
  CHECK_FALSE(MedianConfidenceInterval({1, 2, 3, 4, 5}).has_value());
  CHECK(MinValuesForMedianInterval(0.95) == 6);
  CHECK(MinValuesForMedianInterval(0.99) == 8);
  // All equal: a point.
  auto same = MedianConfidenceInterval({4, 4, 4, 4, 4, 4});
  REQUIRE(same.has_value());
  CHECK(same->low == 4);
  CHECK(same->high == 4);
}

TEST_CASE("the median's interval for many values, against scipy's binomial") {
  // /usr/bin/python3: the largest j with 1 - 2 binom.cdf(j - 1, n, 0.5) >= 0.95 is 40 for n =
  // 100 (coverage 0.96480), 469 for n = 1000 (0.95371) and 2431 for n = 5000 (0.95068): the
  // log-space sum neither underflows nor drifts where 0.5^n is below a double's range.
  for (auto [n, j, coverage] :
       {std::tuple{100, 40, 0.9647997997822951}, std::tuple{1000, 469, 0.9537088026395019},
        std::tuple{5000, 2431, 0.9506841418958285}}) {
    std::vector<double> values;
    for (int i = n; i >= 1; --i) values.push_back(i);
    auto ci = MedianConfidenceInterval(values);
    REQUIRE(ci.has_value());
    CHECK(ci->low == j);
    CHECK(ci->high == n + 1 - j);
    CHECK(ci->coverage == doctest::Approx(coverage).epsilon(1e-9));
  }
}

}  // namespace
}  // namespace ktune
