// A system check with every field known (CPU 1 of a machine that is everything a measurement
// should not have), and the field-by-field comparison of two checks, for the tests of what reads,
// converts and keeps checks.
#pragma once

#include <doctest/doctest.h>

#include "common/system_check.h"

namespace ktune::test {

inline SystemCheck NoisyCheck() {
  SystemCheck c;
  c.cpu = 1;
  c.online_cpus = 2;
  c.governor = "powersave";
  c.min_freq_khz = 800000;
  c.max_freq_khz = 3600000;
  c.cur_freq_khz = 1200000;
  c.boost = true;
  c.thermal_zones = {{"acpitz", 40000}, {"x86_pkg_temp", 91500}, {"broken", std::nullopt}};
  c.isolated = "";
  c.nohz_full = "";
  c.smt_siblings = "1,3";
  c.caches = "L1d:48K L1i:32K L2:1280K L3:12288K";
  c.aslr = 2;
  c.load_1min = 1.9;
  c.other_runnable = 2;
  return c;
}

inline void CheckSameSystem(const SystemCheck& a, const SystemCheck& b) {
  CHECK(a.cpu == b.cpu);
  ForEachOptional(
      [](const char* name, const auto& x, const auto& y) {
        CAPTURE(name);
        CHECK(x == y);
      },
      a, b);
  REQUIRE(a.thermal_zones.size() == b.thermal_zones.size());
  for (size_t i = 0; i < a.thermal_zones.size(); ++i) {
    CHECK(a.thermal_zones[i].type == b.thermal_zones[i].type);
    CHECK(a.thermal_zones[i].temp_mc == b.thermal_zones[i].temp_mc);
  }
}

}  // namespace ktune::test
