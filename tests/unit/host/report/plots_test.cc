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

namespace ktune::host {
namespace {

// Six repetitions around `base` seconds: the same relative jitter for every variant.
const double kJitter[] = {0, 0.01, -0.01, 0.02, -0.02, 0.005};

// Variants (M, N) -> base kernel time: 8_32 fastest, 2x ahead of 8_16, and so on. l2_miss is
// proportional to the time (Spearman 1), instructions constant (no correlation), branches
// unrelated. A fifth variant crashes in one repetition and is left out.
std::vector<RepetitionRow> Fixture(double scale_8_32 = 1, double scale_4_16 = 1) {
  struct V {
    int m, n;
    double base, branches;
  };
  const V variants[] = {{4, 16, 0.004 * scale_4_16, 5},
                        {4, 32, 0.003, 9},
                        {8, 16, 0.002, 7},
                        {8, 32, 0.001 * scale_8_32, 6},
                        {16, 16, 0.0005, 4}};
  std::vector<RepetitionRow> rows;
  for (uint32_t i = 0; i < 5; ++i) {
    const V& v = variants[i];
    for (uint32_t rep = 0; rep < 6; ++rep) {
      RepetitionRow r;
      r.run_id = "run-fixture";
      r.variant_index = i;
      r.variant = "matmul_" + std::to_string(v.m) + "_" + std::to_string(v.n) + ".elf";
      r.elf = "matmul/run/bin/" + r.variant;
      r.params = {{"M", std::to_string(v.m)}, {"N", std::to_string(v.n)}};
      r.repetition = rep;
      const bool crash = i == 4 && rep == 2;
      r.valid = !crash;
      r.outcome = crash ? Outcome{OutcomeKind::kSignaled, 11} : Outcome{OutcomeKind::kExited, 0};
      const double t = v.base * (1 + kJitter[rep]);
      r.values = {{kWallTime, t * 1e9 + 2e5, "ns", 0, 0, ValueStatus::kOk},
                  {kKernelTime, t, "s", 0, 0, ValueStatus::kOk},
                  {"l2_miss", std::round(t * 1e7), "", 100, 100, ValueStatus::kOk},
                  {"instructions", 1000, "", 100, 100, ValueStatus::kOk},
                  {"branches", v.branches, "", 100, 100, ValueStatus::kOk}};
      rows.push_back(r);
    }
  }
  return rows;
}

// Compares `text` with test_data/golden/<name>, or rewrites it when KTUNE_UPDATE_GOLDEN is set.
void CheckGolden(const std::string& name, const std::string& text) {
  const std::string path = std::string(KTUNE_TEST_DATA) + "/golden/" + name;
  if (const char* update = std::getenv("KTUNE_UPDATE_GOLDEN"); update && *update) {
    REQUIRE(WriteFileAtomic(path, text).ok());
    return;
  }
  auto golden = ReadFile(path);
  REQUIRE_MESSAGE(golden.ok(), path << " is missing (KTUNE_UPDATE_GOLDEN=1 writes it)");
  CHECK_MESSAGE(*golden == text, name << " differs from its golden file; rendered:\n" << text);
}

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

}  // namespace
}  // namespace ktune::host
