#include "host/report/machine_state.h"

#include <doctest/doctest.h>

#include <cmath>

namespace ktune::host {
namespace {

// A row started at `t_ns` carrying the machine's state; a negative value is left out.
RepetitionRow Row(int64_t t_ns, double mhz, double celsius) {
  RepetitionRow r;
  r.timestamp_ns = t_ns;
  r.values.push_back({kWallTime, 1e6, "ns"});
  if (mhz >= 0) r.values.push_back({kCpuFrequency, mhz, "MHz"});
  if (celsius >= 0) r.values.push_back({kTemperature, celsius, "C"});
  return r;
}

TEST_CASE("machine state: series in time order, whatever the rows' order") {
  // Stored out of order (a sweep's shards, a resumed run): the timestamps decide.
  const auto s = MachineStateOf({Row(30, 800, 70), Row(10, 1600, 45), Row(20, 1200, 60)});
  REQUIRE(s.frequency_mhz.has_value());
  CHECK(s.frequency_mhz->first == 1600);
  CHECK(s.frequency_mhz->last == 800);
  CHECK(s.frequency_mhz->min == 800);
  CHECK(s.frequency_mhz->max == 1600);
  CHECK(s.frequency_mhz->samples == 3);
  REQUIRE(s.temperature_c.has_value());
  CHECK(s.temperature_c->first == 45);
  CHECK(s.temperature_c->last == 70);
  CHECK(s.temperature_c->max == 70);
  CHECK(MachineStateChange(s) ==
        "the CPU's frequency ranged from 800 to 1600 MHz (1600 at the start, 800 at the end); "
        "the hottest thermal zone went from 45 C to 70 C (70 C at most)");
}

TEST_CASE("machine state: a steady frequency and a temperature within 5 C are no change") {
  const auto s = MachineStateOf({Row(1, 1600, 45), Row(2, 1600, 49.5), Row(3, 1600, 46)});
  CHECK(s.frequency_mhz->samples == 3);
  CHECK(MachineStateChange(s).empty());
  // 5 C exactly is a change; a peak counts even when the run ends cool again.
  const auto peak = MachineStateOf({Row(1, -1, 45), Row(2, -1, 50), Row(3, -1, 45)});
  CHECK(MachineStateChange(peak) ==
        "the hottest thermal zone went from 45 C to 45 C (50 C at most)");
}

TEST_CASE("machine state: rows without it, values not ok and NaN give no series") {
  CHECK_FALSE(MachineStateOf({}).frequency_mhz.has_value());
  const auto none = MachineStateOf({Row(1, -1, -1), Row(2, -1, -1)});
  CHECK_FALSE(none.frequency_mhz.has_value());
  CHECK_FALSE(none.temperature_c.has_value());
  CHECK(MachineStateChange(none).empty());
  RepetitionRow missing = Row(3, 2000, -1);
  missing.values.back().status = ValueStatus::kMissing;
  const auto s = MachineStateOf({missing, Row(4, std::nan(""), -1), Row(5, 1000, -1)});
  REQUIRE(s.frequency_mhz.has_value());
  CHECK(s.frequency_mhz->samples == 1);
  CHECK(s.frequency_mhz->first == 1000);
  CHECK(MachineStateChange(s).empty());
}

}  // namespace
}  // namespace ktune::host
