// khost analyze's model and renderings (host/report/analysis.h, table.h, compare.h, plots.h,
// html_report.h) on a run built here, whose answers are known by construction; the renderings
// are compared with golden files in test_data/golden/ (KTUNE_UPDATE_GOLDEN=1 rewrites them).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/fs.h"
#include "host/report/analysis.h"
#include "host/report/compare.h"
#include "host/report/html_report.h"
#include "host/report/plots.h"
#include "host/report/report.h"
#include "host/report/table.h"
#include "tests/unit/host/report/run_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

TEST_CASE("plots: the ranking, the most correlated counters, and a heat map of two parameters") {
  const RunReport report = BuildReport(Fixture());
  const Analysis a = Analyze(report).value();
  auto plots = PlanPlots(a, report);
  REQUIRE(plots.ok());
  std::vector<std::string> names;
  for (const Plot& p : *plots) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"time_by_variant", "time_vs_wall-time", "time_vs_l2_miss",
                                          "time_vs_branches", "heatmap_M_N"});
  // Fastest first, with the interval of each median.
  CHECK(plots->front().data.starts_with("0\t8_32\t1.002"));  // ms: the slowest is 4 ms
  const Plot& heat = plots->back();
  CHECK(std::count(heat.data.begin(), heat.data.end(), '\n') == 4);  // four (M, N) cells
  CHECK(heat.script.find("set xtics ('4' 0, '8' 1)") != std::string::npos);
  CHECK(heat.script.find("boxxyerror") != std::string::npos);
  PlotOptions bad;
  bad.heat_x = "M";
  bad.heat_y = "K";
  auto refused = PlanPlots(a, report, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message() == "--heatmap: K is not a parameter of run run-fixture");
  for (const Plot& p : *plots) CheckGolden("plot_" + p.name + ".gp", p.script);
}

TEST_CASE(
    "plots: the roofline with the board's ceilings, each variant a point, the winner marked") {
  RunReport report = BuildReport(Fixture());
  for (VariantSummary& v : report.variants) v.work = {2e6, 1e6};
  auto bare = Analyze(report);
  REQUIRE(bare.ok());
  auto plain = PlanPlots(*bare, report);
  REQUIRE(plain.ok());
  for (const Plot& p : *plain) CHECK(p.name != "roofline");  // no ceilings, no roofline
  AnalyzeOptions options;
  options.ceilings =
      Ceilings{{{"fp32 vector 32 B", "fp32", 8}}, {{"L1", 32768, 64}, {"DRAM", 0, 2}}};
  auto a = Analyze(report, options);
  REQUIRE(a.ok());
  auto plots = PlanPlots(*a, report);
  REQUIRE(plots.ok());
  const auto roof = std::find_if(plots->begin(), plots->end(),
                                 [](const Plot& p) { return p.name == "roofline"; });
  REQUIRE(roof != plots->end());
  // One line per ranked variant, the winner (8_32: about 2 GFLOP/s at 2 FLOP/byte) first.
  CHECK(std::count(roof->data.begin(), roof->data.end(), '\n') == 4);
  CHECK(roof->data.substr(0, roof->data.find('\n')).ends_with("\t8_32"));
  CHECK(roof->script.find("set logscale xy") != std::string::npos);
  CHECK(roof->script.find("P = 8\n") != std::string::npos);
  CHECK(roof->script.find("f0(x) = (x * 64 < P) ? x * 64 : P") != std::string::npos);
  CHECK(roof->script.find("'DRAM 2 GB/s'") != std::string::npos);
  CHECK(roof->script.find("'fp32 vector 32 B 8 GFLOP/s'") != std::string::npos);
  CHECK(roof->script.find("title 'winner'") != std::string::npos);
}

}  // namespace
}  // namespace ktune::host
