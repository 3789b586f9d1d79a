#include "host/strategy/replay.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("a landscape of measured configurations: values ascending, points in order") {
  const std::vector<Measured> measured = {
      {{4, 16}, 1234567.5}, {{8, 16}, std::nullopt}, {{4, 32}, std::nullopt}, {{8, 32}, 1000.0}};
  auto l = LandscapeOf({"M", "N"}, measured);
  REQUIRE(l.ok());
  CHECK(l->space.values() == std::vector<std::vector<int64_t>>{{4, 8}, {16, 32}});
  REQUIRE(l->space.size() == 4);
  CHECK(l->space.config(3) == std::vector<int64_t>{8, 32});
  CHECK(l->time[3] == 1000.0);
  CHECK_FALSE(l->time[1].has_value());
  CHECK(l->optimum() == 1000.0);
  // Nothing measured is no landscape; a configuration given twice is an error.
  CHECK_FALSE(LandscapeOf({"M"}, {}).ok());
  CHECK(LandscapeOf({"M"}, {{{4}, 5000.0}, {{4}, 6000.0}}).status().message() ==
        "a configuration is given twice");
}

}  // namespace
}  // namespace ktune::host
