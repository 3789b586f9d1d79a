// Plots of an analysis, drawn by gnuplot as PNG and SVG: the time of every variant, fastest
// first, with the 95% confidence interval of its median; the time against each of the most
// correlated counters (one point per variant); a heat map of the median time over two
// parameters; and, with the board's ceilings, the roofline (log-log, each variant a point).
// Planning (data and gnuplot script) is pure; DrawPlots runs gnuplot.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/db/history.h"
#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/report/search_report.h"
#include "host/report/shapes_report.h"

namespace ktune::host {

struct PlotOptions {
  size_t counters = 3;         // scatter plots for this many of the most correlated
  std::string heat_x, heat_y;  // parameters of the heat map; default the first two
};

struct Plot {
  std::string name;  // file stem: time_by_variant, time_vs_<counter>, heatmap_<x>_<y>
  std::string title;
  std::string data;    // tab-separated, read by the script as "<name>.dat"
  std::string script;  // gnuplot commands after the terminal and output are set
};

// The plots an analysis supports: a heat map needs two parameters with two values each.
// Fails when a --heatmap parameter is not one of the run's.
Result<std::vector<Plot>> PlanPlots(const Analysis& a, const RunReport& report,
                                    const PlotOptions& options = {});

// The convergence of searches: the best time so far (ms) against the evaluations, one step line
// per search, labelled by its strategy and seed ("convergence"). Searches with no feasible
// evaluation are left out; none left is an empty data (DrawPlots is not to be asked for it).
Plot ConvergencePlot(const std::vector<SearchSeries>& searches);

// The shapes of a run side by side ("shapes_heatmap"): each configuration's time over each
// shape's fastest, shapes across, configurations down: the `rows` with the smallest geometric
// mean, the best overall at the top, then each shape's winner not among them. Empty data when
// no configuration was ranked.
Plot ShapesHeatMap(const AcrossShapes& across, size_t rows = 20);

// A kernel's history ("history"): the followed configuration's median with its 95% interval, and
// the best's median, run after run (oldest first), in ms. Empty data without a run.
Plot HistoryPlot(const History& h);
// Writes <dir>/<name>.dat and .gp for every plot and runs gnuplot for <name>.png and .svg.
// Fails, naming the Debian package, when gnuplot is not installed; with gnuplot's own message
// when it fails.
Status DrawPlots(const std::vector<Plot>& plots, const std::string& dir);

}  // namespace ktune::host
