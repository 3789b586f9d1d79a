#include "host/report/drift.h"

#include <algorithm>
#include <cmath>

namespace ktune::host {

std::optional<Drift> MeasureDrift(const std::vector<VariantTimes>& variants) {
  Drift d;
  std::vector<double> early, late;
  for (const VariantTimes& v : variants) {
    std::vector<uint32_t> reps;
    std::vector<double> times;
    for (size_t i = 0; i < v.times.size() && i < v.repetitions.size(); ++i) {
      if (!std::isfinite(v.times[i])) continue;
      reps.push_back(v.repetitions[i]);
      times.push_back(v.times[i]);
    }
    const std::optional<double> median = Median(times);
    if (times.size() < 4 || !median || *median == 0) continue;
    // The middle repetition: repetitions below it are early. With passes, a repetition has a
    // time in each pass, and both go to the same side.
    std::vector<uint32_t> sorted = reps;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const uint32_t middle = sorted[sorted.size() / 2];
    for (size_t i = 0; i < times.size(); ++i) {
      (reps[i] < middle ? early : late).push_back(times[i] / *median - 1);
    }
    ++d.variants;
  }
  d.early = early.size();
  d.late = late.size();
  if (d.early < 4 || d.late < 4) return std::nullopt;
  d.change = *Median(late) - *Median(early);
  d.test = *MannWhitneyU(early, late);
  return d;
}

}  // namespace ktune::host
