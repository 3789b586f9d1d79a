#include "host/strategy/gaussian_process.h"

#include <doctest/doctest.h>

#include <cmath>

namespace ktune::host {
namespace {

TEST_CASE("Matern 5/2: 1 at distance 0, the closed form at one length scale, falling") {
  CHECK(Matern52(0, 0.3) == 1);
  const double s = std::sqrt(5.0);
  CHECK(Matern52(0.3, 0.3) == doctest::Approx((1 + s + 5.0 / 3) * std::exp(-s)));
  CHECK(Matern52(0.1, 0.3) > Matern52(0.2, 0.3));
}

TEST_CASE("a Gaussian process through one point: the posterior in closed form") {
  // k(x, x) = 1: mean at x = y / (1 + noise), variance 1 - 1 / (1 + noise).
  GaussianProcess gp;
  Eigen::MatrixXd x(1, 2);
  x << 0.5, 0.5;
  Eigen::VectorXd y(1);
  y << 2.0;
  REQUIRE(gp.FitWith(x, y, 0.4, 0.25));
  Eigen::MatrixXd at(2, 2);
  at << 0.5, 0.5, 0.5, 0.8;
  const auto p = gp.Predict(at);
  CHECK(p[0].mean == doctest::Approx(2.0 / 1.25));
  CHECK(p[0].variance == doctest::Approx(1 - 1 / 1.25));
  const double k = Matern52(0.3, 0.4);
  CHECK(p[1].mean == doctest::Approx(k * 2.0 / 1.25));
  CHECK(p[1].variance == doctest::Approx(1 - k * k / 1.25));
  // log N(2; 0, 1.25)
  CHECK(gp.log_likelihood() ==
        doctest::Approx(-0.5 * 4 / 1.25 - 0.5 * std::log(1.25) - 0.5 * std::log(2 * M_PI)));
}

TEST_CASE("a Gaussian process interpolates its points and knows nothing far from them") {
  GaussianProcess gp;
  Eigen::MatrixXd x(4, 1);
  x << 0.1, 0.2, 0.3, 0.4;
  Eigen::VectorXd y(4);
  y << 1.0, -0.5, 0.25, 0.0;
  REQUIRE(gp.FitWith(x, y, 0.1, 1e-6));
  const auto at = gp.Predict(x);
  for (int i = 0; i < 4; ++i) {
    CHECK(at[static_cast<size_t>(i)].mean == doctest::Approx(y(i)).epsilon(1e-3));
    CHECK(at[static_cast<size_t>(i)].variance < 1e-4);
  }
  Eigen::MatrixXd far(1, 1);
  far << 5.0;
  const auto f = gp.Predict(far);
  CHECK(std::fabs(f[0].mean) < 1e-6);
  CHECK(f[0].variance == doctest::Approx(1));
  // Fit chooses from the grids and does at least as well as any one pair.
  REQUIRE(gp.Fit(x, y));
  const double chosen = gp.log_likelihood();
  GaussianProcess one;
  REQUIRE(one.FitWith(x, y, 0.1, 1e-6));
  CHECK(chosen >= one.log_likelihood());
}

TEST_CASE("a Gaussian process without data predicts the prior") {
  GaussianProcess gp;
  CHECK_FALSE(gp.Fit(Eigen::MatrixXd(0, 1), Eigen::VectorXd(0)));
  Eigen::MatrixXd at(1, 1);
  at << 0.5;
  CHECK(gp.Predict(at)[0].mean == 0);
  CHECK(gp.Predict(at)[0].variance == 1);
}

TEST_CASE("expected improvement: known values") {
  // Standard normal at the best: EI = phi(0).
  CHECK(ExpectedImprovement({0, 1}, 0, 0) == doctest::Approx(0.3989422804));
  // Mean 1 below the best, sd 1: 1 * Phi(1) + phi(1).
  CHECK(ExpectedImprovement({-1, 1}, 0, 0) == doctest::Approx(0.8413447461 + 0.2419707245));
  // No spread: the improvement itself, or 0.
  CHECK(ExpectedImprovement({-1, 0}, 0, 0) == doctest::Approx(1));
  CHECK(ExpectedImprovement({1, 0}, 0, 0) == 0);
  // xi asks for more improvement.
  CHECK(ExpectedImprovement({0, 1}, 0, 0.5) < ExpectedImprovement({0, 1}, 0, 0));
}

}  // namespace
}  // namespace ktune::host
