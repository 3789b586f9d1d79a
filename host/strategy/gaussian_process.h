// A Gaussian process over points in [0, 1]^d, for Bayesian optimization (host/strategy/bayes.cc):
// a zero-mean prior on standardized targets with the Matérn 5/2 kernel of one length scale
// (isotropic) and unit signal variance, plus noise variance on the diagonal. The length scale and
// the noise are chosen from grids by the largest log marginal likelihood (Rasmussen & Williams,
// Gaussian Processes for Machine Learning, algorithm 2.1: the posterior through the Cholesky
// factor of K + noise I). Eigen does the linear algebra.
//
// Pure. Edge cases: no data, or a factorization that fails for every pair of the grids, gives no
// model (Fit returns false and predictions are the prior: mean 0, variance 1); variances are
// floored at 1e-12.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <vector>

namespace ktune::host {

// The Matérn 5/2 kernel at distance r for length scale l: (1 + s + s^2 / 3) exp(-s), s = sqrt(5) r
// / l.
double Matern52(double r, double length_scale);

struct GpPrediction {
  double mean = 0, variance = 1;
};

class GaussianProcess {
 public:
  // The grids Fit chooses from.
  static const std::vector<double>& LengthScales();
  static const std::vector<double>& Noises();

  // Fits to `x` (rows: points) and standardized `y`, choosing the length scale and noise from the
  // grids; false when no pair gave a factorization.
  bool Fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);
  // Fits with the given length scale and noise; false when the factorization failed.
  bool FitWith(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, double length_scale,
               double noise);
  // The posterior at each row of `at`.
  std::vector<GpPrediction> Predict(const Eigen::MatrixXd& at) const;

  double length_scale() const { return length_scale_; }
  double noise() const { return noise_; }
  // log p(y | x) of the fit.
  double log_likelihood() const { return log_likelihood_; }

 private:
  Eigen::MatrixXd Kernel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) const;

  bool fitted_ = false;
  double length_scale_ = 0.5, noise_ = 1e-6, log_likelihood_ = 0;
  Eigen::MatrixXd x_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
};

// Expected improvement below `best` (minimizing) of a prediction, with exploration margin `xi`:
// (best - mean - xi) Phi(z) + sd phi(z), z = (best - mean - xi) / sd; 0 when sd is 0 and the mean
// does not improve.
double ExpectedImprovement(const GpPrediction& p, double best, double xi);

}  // namespace ktune::host
