#include "host/strategy/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ktune::host {

double Matern52(double r, double length_scale) {
  const double s = std::sqrt(5.0) * r / length_scale;
  return (1 + s + s * s / 3) * std::exp(-s);
}

const std::vector<double>& GaussianProcess::LengthScales() {
  static const std::vector<double> grid = {0.1, 0.15, 0.25, 0.4, 0.6, 1.0, 1.6};
  return grid;
}

const std::vector<double>& GaussianProcess::Noises() {
  static const std::vector<double> grid = {1e-6, 1e-3, 1e-2, 0.05};
  return grid;
}

Eigen::MatrixXd GaussianProcess::Kernel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const {
  Eigen::MatrixXd k(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.rows(); ++j) {
      k(i, j) = Matern52((a.row(i) - b.row(j)).norm(), length_scale_);
    }
  }
  return k;
}

bool GaussianProcess::FitWith(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                              double length_scale, double noise) {
  fitted_ = false;
  if (x.rows() == 0 || x.rows() != y.size()) return false;
  length_scale_ = length_scale;
  noise_ = noise;
  Eigen::MatrixXd k = Kernel(x, x);
  k.diagonal().array() += noise;
  llt_.compute(k);
  if (llt_.info() != Eigen::Success) return false;
  x_ = x;
  alpha_ = llt_.solve(y);
  const Eigen::MatrixXd l = llt_.matrixL();
  log_likelihood_ = -0.5 * y.dot(alpha_) - l.diagonal().array().log().sum() -
                    0.5 * static_cast<double>(y.size()) * std::log(2 * std::numbers::pi);
  fitted_ = std::isfinite(log_likelihood_);
  return fitted_;
}

bool GaussianProcess::Fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  double best = -std::numeric_limits<double>::infinity(), best_l = 0, best_noise = 0;
  for (double l : LengthScales()) {
    for (double noise : Noises()) {
      if (FitWith(x, y, l, noise) && log_likelihood_ > best) {
        best = log_likelihood_;
        best_l = l;
        best_noise = noise;
      }
    }
  }
  if (!std::isfinite(best)) return false;
  return FitWith(x, y, best_l, best_noise);
}

std::vector<GpPrediction> GaussianProcess::Predict(const Eigen::MatrixXd& at) const {
  std::vector<GpPrediction> out(static_cast<size_t>(at.rows()));
  if (!fitted_ || at.rows() == 0) return out;
  const Eigen::MatrixXd ks = Kernel(x_, at);  // training points x queries
  const Eigen::VectorXd mean = ks.transpose() * alpha_;
  const Eigen::MatrixXd v = llt_.matrixL().solve(ks);
  for (Eigen::Index j = 0; j < at.rows(); ++j) {
    GpPrediction& p = out[static_cast<size_t>(j)];
    p.mean = mean(j);
    p.variance = std::max(1e-12, 1.0 - v.col(j).squaredNorm());
  }
  return out;
}

double ExpectedImprovement(const GpPrediction& p, double best, double xi) {
  const double sd = std::sqrt(p.variance);
  const double gain = best - p.mean - xi;
  if (sd <= 0) return std::max(0.0, gain);
  const double z = gain / sd;
  const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  return std::max(0.0, gain * cdf + sd * pdf);
}

}  // namespace ktune::host
