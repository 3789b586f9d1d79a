// Bayesian optimization over the feasible configurations:
//
// - First `initial` points drawn at random (a tenth of the budget, at least 5 and at most 20;
//   Kernel Tuner draws 20 by Latin hypercube). A warm start's points come first. Those measured
//   at this shape on this board count among the draws. Those transferred from another shape or
//   board come in addition and never join the model: they may be the search's best point, but
//   they do not steer it (docs/BENCHMARKS.md, transfer: in the model, the points of a landscape
//   unlike this one cost 1.45 to 1.50 times cold's evaluations over 100 seeds, 1.28 to 1.30 when
//   kept only if one beat every draw; left out, 1.12, and the like landscapes' 0.03 to 0.05 stay).
// - Then a Gaussian process (host/strategy/gaussian_process.h) on the points' coordinates
//   (host/strategy/space.h) and the logarithms of their times, standardized; infeasible points
//   are left out of the model, as Kernel Tuner leaves them, and are never asked again.
// - The next point maximizes the expected improvement (xi = 0.01, scikit-optimize's default, on
//   the standardized scale) over the candidates: every feasible point not asked yet, or in a
//   larger space 2,000 of them drawn at random plus every neighbour of the five best points.
// - A batch of several points: each chosen point joins the model with its predicted mean as its
//   time (the "kriging believer"), and the next is chosen from that model.
// - The model is fit to at most 150 points (the best 75 and 75 of the others drawn at random), so
//   that a step costs the same late in a long search; the length scale and noise are chosen again
//   every 5 results, and kept in between.
#include <algorithm>
#include <cmath>
#include <set>

#include "host/strategy/gaussian_process.h"
#include "host/strategy/strategies.h"

namespace ktune::host {
namespace {

constexpr double kXi = 0.01;
constexpr size_t kMaxCandidates = 2000;
constexpr size_t kBestNeighbourhoods = 5;
constexpr size_t kMaxModelPoints = 150;
constexpr size_t kRefitEvery = 5;

class Bayes : public StrategyBase {
 public:
  Bayes(const SearchSpace& space, const StrategyOptions& options)
      : StrategyBase(space, options), initial_(std::clamp<size_t>(budget() / 10, 5, 20)) {}

  std::vector<size_t> Ask(size_t max) override {
    // A warm start's points, then random ones, until `initial_` feasible ones are known besides
    // those transferred from another shape or board.
    std::vector<size_t> out = AskWarm(max);
    size_t sampling = feasible_.size();
    for (size_t p : out) sampling += Transferred(p) ? 0 : 1;
    while (sampling < initial_ && out.size() < max) {
      const size_t p = AskRandom();
      if (p == space_.size()) break;
      out.push_back(p);
      ++sampling;
    }
    if (!out.empty()) return out;
    std::vector<size_t> model = ModelPoints();
    std::vector<double> y;
    for (size_t p : model) y.push_back(std::log(cost(p)));
    std::vector<size_t> candidates = Candidates();
    while (out.size() < max && !candidates.empty()) {
      const size_t chosen = Choose(model, y, candidates);
      if (chosen == space_.size()) break;
      MarkAsked(chosen);
      out.push_back(chosen);
      candidates.erase(std::find(candidates.begin(), candidates.end(), chosen));
      if (out.size() < max) {  // the believer: its predicted log time joins the model
        model.push_back(chosen);
        y.push_back(believed_);
      }
    }
    if (out.empty()) {  // no model yet (nothing feasible): keep exploring at random
      const size_t p = AskRandom();
      if (p < space_.size()) out.push_back(p);
    }
    return out;
  }

 private:
  // A point transferred from another shape or board stays out of the model: it may give the
  // search its best point, but not steer it (docs/BENCHMARKS.md, transfer).
  void Told(size_t point, std::optional<double> time) override {
    if (time && *time > 0 && !Transferred(point)) feasible_.push_back(point);
  }

  // The feasible points the model is fit to.
  std::vector<size_t> ModelPoints() {
    std::vector<size_t> points = feasible_;
    if (points.size() <= kMaxModelPoints) return points;
    std::stable_sort(points.begin(), points.end(),
                     [&](size_t a, size_t b) { return cost(a) < cost(b); });
    std::vector<size_t> keep(points.begin(), points.begin() + kMaxModelPoints / 2);
    std::vector<size_t> rest(points.begin() + kMaxModelPoints / 2, points.end());
    while (keep.size() < kMaxModelPoints) {
      const size_t k = Below(rest.size());
      keep.push_back(rest[k]);
      rest.erase(rest.begin() + static_cast<long>(k));
    }
    return keep;
  }

  std::vector<size_t> Candidates() {
    std::vector<size_t> unasked;
    for (size_t p = 0; p < space_.size(); ++p) {
      if (!asked(p)) unasked.push_back(p);
    }
    if (unasked.size() <= kMaxCandidates) return unasked;
    std::set<size_t> chosen;
    std::vector<size_t> best = feasible_;
    std::stable_sort(best.begin(), best.end(),
                     [&](size_t a, size_t b) { return cost(a) < cost(b); });
    best.resize(std::min(best.size(), kBestNeighbourhoods));
    for (size_t b : best) {
      for (const auto& near : {space_.HammingNeighbours(b), space_.AdjacentNeighbours(b)}) {
        for (size_t n : near) {
          if (!asked(n)) chosen.insert(n);
        }
      }
    }
    while (chosen.size() < kMaxCandidates + kBestNeighbourhoods) {
      chosen.insert(unasked[Below(unasked.size())]);
      if (chosen.size() >= unasked.size()) break;
    }
    return {chosen.begin(), chosen.end()};
  }

  Eigen::MatrixXd Coordinates(const std::vector<size_t>& points) const {
    Eigen::MatrixXd x(static_cast<Eigen::Index>(points.size()),
                      static_cast<Eigen::Index>(space_.dimensions()));
    for (size_t i = 0; i < points.size(); ++i) {
      const std::vector<double> c = space_.Coordinates(points[i]);
      for (size_t d = 0; d < c.size(); ++d) {
        x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(d)) = c[d];
      }
    }
    return x;
  }

  // The candidate of the largest expected improvement under a model of (model, y); sets
  // believed_ to its predicted log time. size() of the space when there is no model.
  size_t Choose(const std::vector<size_t>& model, const std::vector<double>& y,
                const std::vector<size_t>& candidates) {
    if (model.empty()) return space_.size();
    double mean = 0, sd = 0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(y.size());
    for (double v : y) sd += (v - mean) * (v - mean);
    sd = y.size() > 1 ? std::sqrt(sd / static_cast<double>(y.size() - 1)) : 0;
    if (!(sd > 0)) sd = 1;
    Eigen::VectorXd z(static_cast<Eigen::Index>(y.size()));
    double best = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      z(static_cast<Eigen::Index>(i)) = (y[i] - mean) / sd;
      best = i == 0 ? z(0) : std::min(best, z(static_cast<Eigen::Index>(i)));
    }
    const Eigen::MatrixXd x = Coordinates(model);
    const bool refit = !has_hyper_ || told() >= hyper_at_ + kRefitEvery;
    bool fitted = refit ? gp_.Fit(x, z) : gp_.FitWith(x, z, length_scale_, noise_);
    if (!fitted && !refit) fitted = gp_.Fit(x, z);
    if (!fitted) return space_.size();
    if (refit) {
      has_hyper_ = true;
      hyper_at_ = told();
      length_scale_ = gp_.length_scale();
      noise_ = gp_.noise();
    }
    const std::vector<GpPrediction> p = gp_.Predict(Coordinates(candidates));
    size_t chosen = 0;
    double top = -1;
    for (size_t i = 0; i < p.size(); ++i) {
      const double ei = ExpectedImprovement(p[i], best, kXi);
      if (ei > top) {
        top = ei;
        chosen = i;
      }
    }
    believed_ = mean + sd * p[chosen].mean;
    return candidates[chosen];
  }

  const size_t initial_;
  std::vector<size_t> feasible_;  // the model's points
  GaussianProcess gp_;
  bool has_hyper_ = false;
  size_t hyper_at_ = 0;
  double length_scale_ = 0, noise_ = 0, believed_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> MakeBayes(const SearchSpace& space, const StrategyOptions& options) {
  return std::make_unique<Bayes>(space, options);
}

}  // namespace ktune::host
