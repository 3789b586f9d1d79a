#include "host/db/history.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

HistoryPoint Point(std::string run, int64_t at, std::string config, double median,
                   std::optional<double> low, std::optional<double> high) {
  HistoryPoint p;
  p.run_id = std::move(run);
  p.started_ns = at;
  p.config = std::move(config);
  p.metric = "kernel-time";
  p.median_ns = median;
  p.ci_low_ns = low;
  p.ci_high_ns = high;
  p.n = low ? 6 : 5;
  return p;
}

TEST_CASE("a change is flagged only when the runs' intervals do not overlap") {
  const HistoryPoint base = Point("a", 1, "c", 100, 95, 105);
  CHECK(CompareRuns(base, Point("b", 2, "c", 120, 110, 130)) == Change::kRegression);
  CHECK(CompareRuns(base, Point("b", 2, "c", 80, 70, 90)) == Change::kImprovement);
  CHECK(CompareRuns(base, Point("b", 2, "c", 108, 104, 112)) == Change::kSame);  // overlap
  CHECK(CompareRuns(base, Point("b", 2, "c", 300, std::nullopt, std::nullopt)) ==
        Change::kNoVerdict);
  CHECK(std::string(ChangeName(Change::kNoVerdict)) == "no verdict");
}

TEST_CASE("history follows a configuration and each run's best, oldest first") {
  const History h =
      BuildHistory({Point("r2", 20, "x", 120, 110, 130),  // x slower in r2
                    Point("r1", 10, "x", 100, 95, 105), Point("r1", 10, "y", 90, 85, 95),
                    Point("r2", 20, "y", 130, 120, 140), Point("r3", 30, "x", 80, 75, 85)},
                   "");
  CHECK(h.config == "x");  // the newest run's fastest
  REQUIRE(h.config_steps.size() == 3);
  CHECK(h.config_steps[0].change == Change::kFirst);
  CHECK(h.config_steps[1].change == Change::kRegression);
  CHECK(h.config_steps[1].ratio == doctest::Approx(1.2));
  CHECK(h.config_steps[2].change == Change::kImprovement);
  REQUIRE(h.best_steps.size() == 3);
  CHECK(h.best_steps[0].point.config == "y");
  CHECK(h.best_steps[1].point.config == "x");
  CHECK(h.best_steps[1].change == Change::kRegression);  // 90 [85, 95] -> 120 [110, 130]
  CHECK(BuildHistory({Point("r1", 10, "x", 100, 95, 105)}, "y").config_steps.empty());
}

}  // namespace
}  // namespace ktune::host
