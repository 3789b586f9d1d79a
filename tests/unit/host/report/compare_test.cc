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

TEST_CASE("comparing two runs: ratios, significance and the geometric mean") {
  std::vector<RepetitionRow> b = Fixture(/*scale_8_32=*/0.5, /*scale_4_16=*/1.5);
  for (RepetitionRow& r : b) r.run_id = "run-b";
  auto c = CompareRuns(BuildReport(Fixture()), BuildReport(b));
  REQUIRE(c.ok());
  CHECK(c->time_name == kKernelTime);
  REQUIRE(c->variants.size() == 5);
  auto find = [&](const std::string& name) {
    return *std::find_if(c->variants.begin(), c->variants.end(),
                         [&](const VariantComparison& v) { return v.name == name; });
  };
  CHECK(find("matmul_8_32.elf").verdict == "faster");
  CHECK(*find("matmul_8_32.elf").ratio == doctest::Approx(0.5));
  CHECK(find("matmul_4_16.elf").verdict == "slower");
  CHECK(find("matmul_4_32.elf").verdict == "same");
  CHECK(find("matmul_16_16.elf").verdict == "invalid in A");
  CHECK(c->faster == 1);
  CHECK(c->slower == 1);
  CHECK(c->same == 2);
  CHECK(*c->geomean == doctest::Approx(std::pow(0.5 * 1.5, 0.25)));
  CheckGolden("compare.txt", RenderConsole(ComparisonTable(*c)));
}

}  // namespace
}  // namespace ktune::host
