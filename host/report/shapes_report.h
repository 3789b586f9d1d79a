// khost analyze of a run measured at several problem shapes (khost tune --shapes): each shape is
// analyzed as a run of its own (its winner and verdict, counter correlations, parameter effects:
// host/report/analysis.h), then the shapes side by side: each configuration's time relative to
// each shape's fastest, and the one configuration that is best overall. Pure.
//
// The best overall is the configuration with the smallest geometric mean of relative time over
// the shapes, among those measured, valid in every repetition, at every shape (a configuration
// the constraints leave out at one shape cannot serve them all); none when no configuration ran
// at every shape.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/results.h"
#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/report/table.h"

namespace ktune::host {

// A run's rows by shape, in the order of each shape's first variant; each shape's rows keep their
// order and have their variant indices renumbered from 0 in the order of the run's (so that
// BuildReport sees a run of that shape's variants). Rows without a shape are a shape of their
// own, the empty one.
struct ShapeRows {
  Params shape;
  std::vector<RepetitionRow> rows;
};
std::vector<ShapeRows> SplitByShape(const std::vector<RepetitionRow>& rows);

// Whether the rows carry more than one shape.
bool SeveralShapes(const std::vector<RepetitionRow>& rows);

// One shape's report and analysis (none when nothing of it could be analyzed: `problem` says why).
struct ShapeAnalysis {
  Params shape;
  RunReport report;
  std::optional<Analysis> analysis;
  std::string problem;
};

// Each shape of `rows` (SplitByShape) as a run of its own: BuildReport, then Analyze with
// `options`; a shape Analyze refuses (no variant valid in every repetition with a time) has its
// error in `problem`.
std::vector<ShapeAnalysis> AnalyzeEachShape(const std::vector<RepetitionRow>& rows,
                                            const std::vector<MetricDef>& metrics,
                                            const AnalyzeOptions& options);

struct AcrossShapes {
  std::vector<Params> shapes;
  std::vector<std::string> param_names;
  std::vector<Params> configs;  // each configuration's parameters, in the order first ranked
  // relative[c][s]: configuration c's median time at shape s over that shape's fastest (>= 1);
  // none when c was not measured there or was not valid in every repetition.
  std::vector<std::vector<std::optional<double>>> relative;
  // geomean[c]: the geometric mean of relative[c] when c has a relative time at every shape.
  std::vector<std::optional<double>> geomean;
  struct Winner {
    size_t config = 0;  // index into configs
    double median = 0;  // in the shape analysis's time unit
    std::string time_name, time_unit;
    bool named = false;   // the verdict names it (distinguishable from the runner-up, stable)
    std::string verdict;  // the shape analysis's verdict text; "" with one variant only
  };
  std::vector<std::optional<Winner>> winners;  // per shape
  std::vector<std::string> problems;           // per shape: why it has no winner ("" if it has)
  std::optional<size_t> overall;               // index into configs
  std::optional<double> overall_geomean;       // its geometric mean of relative time
};
AcrossShapes CompareShapes(const std::vector<ShapeAnalysis>& shapes);

// The winner of each shape (with its verdict) and what the best overall loses there; then the
// shape x configuration table of relative times (configurations by geometric mean, the best
// overall first).
std::vector<Table> AcrossShapesTables(const AcrossShapes& across);

}  // namespace ktune::host
