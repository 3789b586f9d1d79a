#include <doctest/doctest.h>

#include "host/cli/cmd_analyze.h"
#include "host/report/table.h"

namespace ktune::host {
namespace {

TEST_CASE("analyze options") {
  auto a = ParseAnalyzeArgs({"k", "--threshold", "0.5", "--heatmap", "M,N", "--format", "csv",
                             "--no-plots", "--run", "r1", "--out", "d"});
  REQUIRE(a.ok());
  CHECK(a->threshold == 0.5);
  CHECK(a->heat_x == "M");
  CHECK(a->heat_y == "N");
  CHECK(a->format == TableFormat::kCsv);
  CHECK_FALSE(a->plots);
  CHECK(a->run_id == "r1");
  CHECK(a->out_dir == "d");
  auto d = ParseAnalyzeArgs({"k"});
  REQUIRE(d.ok());
  CHECK(d->threshold == 0.7);
  CHECK(d->plots);
  CHECK(d->counters == 3);
  CHECK(ParseAnalyzeArgs({"k", "--threshold", "2"}).status().message() ==
        "--threshold '2': a correlation |r| from 0 to 1");
  CHECK(ParseAnalyzeArgs({"k", "--heatmap", "M,M"}).status().message() ==
        "--heatmap takes two different parameters: X,Y");
  CHECK_FALSE(ParseAnalyzeArgs({"k", "--format", "xml"}).ok());
}

}  // namespace
}  // namespace ktune::host
