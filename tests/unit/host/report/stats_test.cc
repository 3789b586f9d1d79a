#include <doctest/doctest.h>

#include <cmath>

#include "host/report/stats.h"
#include "host/util/progress.h"

namespace ktune::host {
namespace {

TEST_CASE("mean, min and max over repetitions, with their edge cases") {
  CHECK(*Mean({1, 2, 3, 6}) == 3);
  CHECK(*Min({5, -1, 2}) == -1);
  CHECK(*Max({5, -1, 2}) == 5);
  // One value is every statistic; all equal values too.
  CHECK(*Mean({7, 7, 7}) == 7);
  // No value: no statistic.
  CHECK_FALSE(Mean({}).has_value());
  // NaN is skipped.
  CHECK(*Mean({NAN, 1, 3}) == 2);
  CHECK_FALSE(Max({NAN}).has_value());
}

TEST_CASE("spread: sample standard deviation and coefficient of variation") {
  // mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32 over n - 1 = 7
  CHECK(*StdDev({2, 4, 4, 4, 5, 5, 7, 9}) == doctest::Approx(std::sqrt(32.0 / 7)));
  CHECK(*CoefficientOfVariation({2, 4, 4, 4, 5, 5, 7, 9}) ==
        doctest::Approx(std::sqrt(32.0 / 7) / 5));
  CHECK(*StdDev({3, 3, 3}) == 0);
  CHECK_FALSE(StdDev({3}).has_value());                      // one value has no spread
  CHECK_FALSE(CoefficientOfVariation({-1, 1}).has_value());  // mean 0
  CHECK_FALSE(StdDev({NAN, 1}).has_value());                 // NaN skipped: one value left
}

TEST_CASE("outliers by the median absolute deviation") {
  // median 2, deviations 1 1 0 0 2 4 7: MAD 1
  CHECK(*MedianAbsoluteDeviation({1, 1, 2, 2, 4, 6, 9}) == 1);
  // median 10.05, MAD 0.15: 30 is 0.6745 * 19.95 / 0.15 = 89.7 scaled deviations out.
  CHECK(Outliers({10, 10.1, 9.9, 10.2, 9.8, 30}) == std::vector<size_t>{5});
  CHECK(Outliers({10, 10.1, 9.9, 10.2, 9.8}).empty());
  // More than half equal: MAD 0, the spread is unknown, nothing is flagged.
  CHECK(Outliers({5, 5, 5, 5, 9}).empty());
  CHECK(Outliers({1, 100}).empty());  // too few to tell
  CHECK(Outliers({NAN, 10, 10.1, 9.9, 10.2, 9.8, 30}) == std::vector<size_t>{6});
}

TEST_CASE("the sign test of paired differences, exact") {
  // 10 of 10 positive: 2 P(B <= 0) = 2 / 1024.
  auto all = SignTestOf({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  REQUIRE(all.has_value());
  CHECK(all->positive == 10);
  CHECK(all->n == 10);
  CHECK(all->p_value == doctest::Approx(2.0 / 1024));
  // 2 of 10 negative: 2 (1 + 10 + 45) / 1024.
  auto most = SignTestOf({1, 1, 1, 1, 1, 1, 1, 1, -1, -1});
  CHECK(most->p_value == doctest::Approx(112.0 / 1024));
  // Balanced: 1, not above. Zeros and NaN are dropped; nothing left: none.
  CHECK(SignTestOf({1, -1, 2, -2})->p_value == 1);
  CHECK(SignTestOf({0, 1, NAN, -1})->n == 2);
  CHECK_FALSE(SignTestOf({0, 0}).has_value());
  CHECK_FALSE(SignTestOf({}).has_value());
}

TEST_CASE("ranks average over ties") {
  CHECK(Ranks({3, 1, 4, 1, 5}) == std::vector<double>{3, 1.5, 4, 1.5, 5});
  CHECK(Ranks({2, 2, 2}) == std::vector<double>{2, 2, 2});
  CHECK(Ranks({}).empty());
}

TEST_CASE("Pearson and Spearman with p-values, worked by hand") {
  // n = 3 (one degree of freedom): r = 1/2, t = 1/sqrt(3), p = 1 - 2 atan(t) / pi = 2/3.
  auto three = Pearson({1, 2, 3}, {1, 3, 2});
  REQUIRE(three.has_value());
  CHECK(three->r == doctest::Approx(0.5));
  CHECK(three->p_value == doctest::Approx(2.0 / 3));
  CHECK(three->n == 3);
  // n = 4 (two degrees of freedom): r = 4/5, t^2 = 0.64 * 2 / 0.36, p = 1 - t / sqrt(t^2 + 2).
  auto four = Pearson({1, 2, 3, 4}, {1, 3, 2, 4});
  REQUIRE(four.has_value());
  CHECK(four->r == doctest::Approx(0.8));
  CHECK(four->p_value == doctest::Approx(0.2));
  // Spearman is Pearson of the ranks: x ranks 1 2.5 2.5 4 against 1 2 3 4 give 4.5 / sqrt(22.5).
  auto ties = Spearman({1, 2, 2, 3}, {10, 20, 30, 40});
  REQUIRE(ties.has_value());
  CHECK(ties->r == doctest::Approx(4.5 / std::sqrt(22.5)));
  // Monotone but not linear: Spearman 1 (p 0), Pearson below 1.
  auto mono = Spearman({1, 2, 3, 4, 5}, {1, 4, 9, 16, 125});
  REQUIRE(mono.has_value());
  CHECK(mono->r == doctest::Approx(1));
  CHECK(mono->p_value == 0);
  CHECK(Pearson({1, 2, 3, 4, 5}, {1, 4, 9, 16, 125})->r < 0.9);
  // Undefined: a constant side, too few pairs, sizes that differ; NaN pairs dropped.
  CHECK_FALSE(Pearson({1, 1, 1}, {1, 2, 3}).has_value());
  CHECK_FALSE(Spearman({1, 2, 3}, {5, 5, 5}).has_value());
  CHECK_FALSE(Pearson({1, 2}, {2, 1}).has_value());
  CHECK_FALSE(Pearson({1, 2, 3}, {1, 2}).has_value());
  CHECK_FALSE(Pearson({1, 2, NAN}, {1, 2, 3}).has_value());
  CHECK(Pearson({1, 2, 3, NAN, 4}, {1, 3, 2, 7, 4})->r == doctest::Approx(0.8));
}

TEST_CASE("Mann-Whitney U: exact for small samples, normal approximation otherwise") {
  // 3 against 3, all of a below b: U = 0, and only 1 of the C(6,3) = 20 orders is as extreme
  // on each side.
  auto apart = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  REQUIRE(apart.has_value());
  CHECK(apart->u == 0);
  CHECK(apart->exact);
  CHECK(apart->p_value == doctest::Approx(0.1));
  // 2 against 1: U takes 0, 1, 2 once each; U = 0 is as extreme as 2.
  CHECK(MannWhitneyU({1, 2}, {3})->p_value == doctest::Approx(2.0 / 3));
  // U counts pairs where a is larger, ties one half.
  CHECK(MannWhitneyU({1, 5}, {3})->u == 1);
  // 8 against 8 is still exact (as scipy: the approximation needs both above 8): U = 0 is one of
  // C(16, 8) = 12870 orders on each side.
  auto eight = MannWhitneyU({1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15, 16});
  REQUIRE(eight.has_value());
  CHECK(eight->exact);
  CHECK(eight->p_value == doctest::Approx(2.0 / 12870));
  // 9 against 9, no ties: normal approximation, mean 40.5, variance 81 / 12 * 19, continuity 0.5.
  auto big = MannWhitneyU({1, 2, 3, 4, 5, 6, 7, 8, 9}, {10, 11, 12, 13, 14, 15, 16, 17, 18});
  REQUIRE(big.has_value());
  CHECK_FALSE(big->exact);
  const double z = (81 - 40.5 - 0.5) / std::sqrt(81.0 / 12 * 19);
  CHECK(big->p_value == doctest::Approx(std::erfc(z / std::sqrt(2.0))));
  // Ties force the approximation; all values equal tell nothing.
  CHECK_FALSE(MannWhitneyU({1, 2, 2}, {2, 3, 4})->exact);
  CHECK(MannWhitneyU({5, 5, 5}, {5, 5})->p_value == 1);
  CHECK_FALSE(MannWhitneyU({}, {1, 2}).has_value());
}

}  // namespace
}  // namespace ktune::host
