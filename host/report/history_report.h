// khost history for people and programs: the tables of a configuration's time and of the best
// time run by run (host/db/history.h), the same as versioned JSON with numbers in ns, and one HTML
// page with the plot of both (HistoryPlot in host/report/plots.h).
#pragma once

#include <string>

#include "host/db/history.h"
#include "host/report/table.h"

namespace ktune::host {

// One row per run: when, median, 95% CI, n, the ratio to the run before, the change flagged, what
// measured and built it; `best`: the best's series, with each run's fastest configuration.
Table HistoryTable(const History& h, bool best);

// {"schema": 1, "kernel", "board", "shape", "config", "test", "config_runs": [...],
// "best_runs": [...]}, each run with its numbers (median_ns, ci_low_ns, ci_high_ns (null without
// an interval), n, ratio_to_previous) and "change".
std::string HistoryJson(const History& h);

// The page: the two tables and the plot (`svg`, "" with `plots_note` saying why there is none).
std::string RenderHistoryHtml(const History& h, const std::string& svg,
                              const std::string& plots_note);

// What the flags mean, for the notes under the tables and the page.
extern const char* const kHistoryTest;

}  // namespace ktune::host
