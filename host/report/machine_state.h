// The machine's state over a run: the measured CPU's frequency and the hottest thermal zone,
// which agentd reads before each round and stores with the round's rows (common/results.h,
// kCpuFrequency and kTemperature), summed up in time order and said in words when it changed, for
// the notes under a report and the drift verdict of khost analyze (host/report/analysis.h).
//
// Pure. Edge cases: rows without the values (a machine without cpufreq or thermal zones, a run
// from before them) give no series; NaN values are skipped; a frequency that never changed, or a
// temperature that moved less than kTemperatureChangeC, is not a change.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/results.h"

namespace ktune::host {

inline constexpr double kTemperatureChangeC = 5;

struct StateSeries {
  double first = 0, last = 0, min = 0, max = 0;  // in time order (the rows' timestamps)
  size_t samples = 0;
};

struct MachineStateOverRun {
  std::optional<StateSeries> frequency_mhz, temperature_c;
};

MachineStateOverRun MachineStateOf(const std::vector<RepetitionRow>& rows);

// What changed: "the CPU's frequency ranged from 1200 to 1600 MHz (1600 at the start, 1200 at the
// end)", "the hottest thermal zone went from 45 C to 78 C (78 C at most)", joined by "; "; "" when
// nothing did.
std::string MachineStateChange(const MachineStateOverRun& state);

}  // namespace ktune::host
