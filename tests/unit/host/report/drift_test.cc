#include "host/report/drift.h"

#include <doctest/doctest.h>

#include <cmath>

namespace ktune::host {
namespace {

// `n` repetitions of a variant whose times are `base` early and `base * late_factor` from
// repetition n / 2 on, with a small alternating wobble.
VariantTimes Times(double base, double late_factor, uint32_t n) {
  VariantTimes v;
  for (uint32_t r = 0; r < n; ++r) {
    v.repetitions.push_back(r);
    v.times.push_back(base * (r < n / 2 ? 1 : late_factor) * (r % 2 ? 1.001 : 0.999));
  }
  return v;
}

TEST_CASE("drift: a machine twice as slow in the second half, over every variant") {
  auto d = MeasureDrift({Times(1.0, 2.0, 10), Times(1.03, 2.0, 10)});
  REQUIRE(d.has_value());
  // Each variant's median is halfway: early residuals near -1/3, late near +1/3.
  CHECK(d->change == doctest::Approx(2.0 / 3).epsilon(0.01));
  CHECK(d->test.p_value < 0.001);
  CHECK(d->variants == 2);
  CHECK(d->early == 10);
  CHECK(d->late == 10);
}

TEST_CASE("drift: none in a steady run") {
  // Halves of 4: the same wobble in each.
  auto d = MeasureDrift({Times(1.0, 1.0, 8), Times(2.0, 1.0, 8)});
  REQUIRE(d.has_value());
  CHECK(std::fabs(d->change) < 1e-12);
  CHECK(d->test.p_value > 0.5);
}

TEST_CASE("drift: passes put both times of a repetition on one side; edge cases") {
  // Two passes: each repetition twice. Repetitions 0-2 early, 3-5 late.
  VariantTimes v;
  for (uint32_t r = 0; r < 6; ++r) {
    for (int pass = 0; pass < 2; ++pass) {
      v.repetitions.push_back(r);
      v.times.push_back(r < 3 ? 1.0 : 1.5);
    }
  }
  auto d = MeasureDrift({v});
  REQUIRE(d.has_value());
  CHECK(d->early == 6);
  CHECK(d->late == 6);
  CHECK(d->change > 0.3);
  // Fewer than 4 times: the variant is left out; nothing left: no drift.
  CHECK_FALSE(MeasureDrift({Times(1.0, 2.0, 3)}).has_value());
  CHECK_FALSE(MeasureDrift({}).has_value());
  // NaN skipped; a median of 0 leaves the variant out.
  VariantTimes zero{{0, 1, 2, 3, 4}, {0, 0, 0, 0, 0}};
  CHECK_FALSE(MeasureDrift({zero}).has_value());
  VariantTimes nan = Times(1.0, 2.0, 10);
  nan.times[0] = NAN;
  auto with_nan = MeasureDrift({nan});
  REQUIRE(with_nan.has_value());
  CHECK(with_nan->early + with_nan->late == 9);
}

}  // namespace
}  // namespace ktune::host
