// The analysis (host/report/analysis.h) as tables people read -- the ranking, the verdict and
// why-it-wins, correlations, parameter effects -- and the seed's high_correlations.csv. Pure.
#pragma once

#include <string>
#include <vector>

#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/report/table.h"

namespace ktune::host {

// The tables: ranking, the verdict and why-it-wins, correlations, parameter effects, and the
// roofline (each variant's work rates) when the variants declare their work.
std::vector<Table> AnalysisTables(const Analysis& a, const RunReport& report);

// The seed's high_correlations.csv: "Metric,Correlation,P-Value", Pearson, |r| > threshold.
std::string HighCorrelationsCsv(const Analysis& a);

}  // namespace ktune::host
