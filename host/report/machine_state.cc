#include "host/report/machine_state.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "host/util/format.h"

namespace ktune::host {
namespace {

void Add(std::optional<StateSeries>& series, double v) {
  if (std::isnan(v)) return;
  if (!series) {
    series = StateSeries{v, v, v, v, 0};
  }
  series->last = v;
  series->min = std::min(series->min, v);
  series->max = std::max(series->max, v);
  ++series->samples;
}

}  // namespace

MachineStateOverRun MachineStateOf(const std::vector<RepetitionRow>& rows) {
  std::vector<std::pair<int64_t, const RepetitionRow*>> ordered;
  for (const RepetitionRow& row : rows) ordered.emplace_back(row.timestamp_ns, &row);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  MachineStateOverRun s;
  for (const auto& [t, row] : ordered) {
    for (const MeasuredValue& v : row->values) {
      if (v.status != ValueStatus::kOk) continue;
      if (v.name == kCpuFrequency) Add(s.frequency_mhz, v.value);
      if (v.name == kTemperature) Add(s.temperature_c, v.value);
    }
  }
  return s;
}

std::string MachineStateChange(const MachineStateOverRun& state) {
  std::vector<std::string> parts;
  if (const auto& f = state.frequency_mhz; f && f->max > f->min) {
    parts.push_back("the CPU's frequency ranged from " + FormatNumber(f->min) + " to " +
                    FormatNumber(f->max) + " MHz (" + FormatNumber(f->first) + " at the start, " +
                    FormatNumber(f->last) + " at the end)");
  }
  if (const auto& t = state.temperature_c; t && t->max - t->min >= kTemperatureChangeC) {
    parts.push_back("the hottest thermal zone went from " + FormatNumber(t->first) + " C to " +
                    FormatNumber(t->last) + " C (" + FormatNumber(t->max) + " C at most)");
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace ktune::host
