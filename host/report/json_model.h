// khost's JSON documents, for scripts: the report of a run (khost report --format json) and its
// analysis (khost analyze --format json, analysis.json). Each is a model with a schema name and
// version, numbers as JSON numbers in fixed units (times in seconds whatever unit the results
// file holds them in; counts as counts; ratios and CV as fractions), and null where a statistic
// does not exist. docs/ANALYSIS.md documents every field; a version changes when a field changes
// meaning or goes.
#pragma once

#include <string>

#include "host/report/analysis.h"
#include "host/report/report.h"

namespace ktune::host {

inline constexpr int kReportJsonVersion = 2;    // 1: times in the results file's units
inline constexpr int kAnalysisJsonVersion = 1;  // 1: the model (before: the tables' text)

std::string RenderReportJson(const RunReport& report);
std::string RenderAnalysisJson(const Analysis& analysis, const RunReport& report);

}  // namespace ktune::host
