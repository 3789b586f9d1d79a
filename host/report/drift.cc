#include "host/report/drift.h"

#include <algorithm>
#include <cmath>

namespace ktune::host {

std::optional<Drift> MeasureDrift(const std::vector<VariantTimes>& variants) {
  Drift d;
  std::vector<double> early, late;
  for (const VariantTimes& v : variants) {
    std::vector<std::pair<uint32_t, double>> finite;
    for (size_t i = 0; i < v.times.size() && i < v.repetitions.size(); ++i) {
      if (std::isfinite(v.times[i])) finite.emplace_back(v.repetitions[i], v.times[i]);
    }
    std::vector<double> times;
    for (const auto& [rep, t] : finite) times.push_back(t);
    const std::optional<double> median = Median(times);
    if (finite.size() < 4 || !median || *median == 0) continue;
    std::vector<uint32_t> reps;
    for (const auto& [rep, t] : finite) reps.push_back(rep);
    std::sort(reps.begin(), reps.end());
    // The middle repetition: repetitions below it are early. With passes, a repetition has a
    // time in each pass, and both go to the same side.
    const uint32_t middle = reps[reps.size() / 2];
    for (const auto& [rep, t] : finite) (rep < middle ? early : late).push_back(t / *median - 1);
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
