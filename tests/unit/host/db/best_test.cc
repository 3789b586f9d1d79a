#include "host/db/tuning_db.h"

#include <doctest/doctest.h>

#include <cmath>

#include "common/fs.h"
#include "host/db/db_import.h"
#include "host/db/schema.h"
#include "host/results/results_dir.h"
#include "tests/unit/host/db/db_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using dbtest::Meta;
using dbtest::Row;

TEST_CASE("shapes are near by the logs of their dimensions, those asked for alone") {
  CHECK(*ShapeDistance({{"M", "64"}, {"N", "64"}}, {{"N", "64"}, {"M", "64"}}) == 0);
  CHECK(*ShapeDistance({{"M", "128"}, {"N", "16"}}, {{"M", "64"}, {"N", "64"}}) ==
        doctest::Approx(3));
  CHECK(*ShapeDistance({{"M", "64"}, {"RUN_COUNT", "3"}}, {{"M", "64"}}) == 0);
  CHECK_FALSE(ShapeDistance({{"M", "64"}}, {{"M", "64"}, {"K", "8"}}));
  CHECK_FALSE(ShapeDistance({{"M", "a"}}, {{"M", "b"}}));
}

TEST_CASE("the nearest shape answers; of equally near ones, the one with more configurations") {
  const std::vector<MeasuredShape> measured = {
      {{{"M", "128"}}, 3}, {{{"M", "32"}}, 5}, {{{"K", "64"}}, 9}, {{{"M", "512"}}, 20}};
  CHECK(NearestShape(measured, {{"M", "64"}}) == 1);    // 128 and 32 one octave away: 5 > 3
  CHECK(NearestShape(measured, {{"M", "128"}}) == 0);   // the shape itself, with fewer
  CHECK(NearestShape(measured, {{"M", "1024"}}) == 3);  // 512, one octave; 128, three
  CHECK(NearestShape(measured, {{"N", "8"}}) == 4);     // none has N: measured.size()
  CHECK(NearestShape({}, {{"M", "64"}}) == 0);
  CHECK(NearestShape({{{{"M", "64"}}, 1}, {{{"M", "64"}}, 1}}, {{"M", "64"}}) == 0);  // the first
}

TEST_CASE("the best of each configuration is its newest result, of one metric, fastest first") {
  auto entry = [](std::string config, double median, int64_t at, std::string metric) {
    BestEntry e;
    e.config = std::move(config);
    e.median_ns = median;
    e.measured_ns = at;
    e.metric = std::move(metric);
    return e;
  };
  const auto out =
      NewestPerConfig({entry("a", 10, 1, "kernel-time"), entry("a", 30, 2, "kernel-time"),
                       entry("b", 20, 1, "kernel-time"), entry("c", 5, 1, "wall-time")});
  REQUIRE(out.size() == 2);
  CHECK(out[0].config == "b");
  CHECK(out[1].config == "a");
  CHECK(out[1].median_ns == 30);
}

}  // namespace
}  // namespace ktune::host
