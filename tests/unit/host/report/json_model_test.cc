// host/report/json_model.h: the report and analysis documents read back as a script reads them,
// on the fixture run whose statistics are known (tests/unit/host/report/run_fixture.h).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "host/report/analysis.h"
#include "host/report/json_model.h"
#include "host/report/report.h"
#include "tests/unit/host/report/run_fixture.h"

namespace ktune::host {
namespace {

using Json = nlohmann::json;

TEST_CASE("the report document: schema, numbers in seconds and counts, null where none") {
  const RunReport report = BuildReport(fixture::Fixture());
  const Json doc = Json::parse(RenderReportJson(report));
  CHECK(doc["schema"] == "ktune-report");
  CHECK(doc["version"] == kReportJsonVersion);
  CHECK(doc["best"] == "matmul_8_32.elf");
  const Json& v = doc["variants"][3];  // 8_32: 1 ms, jitter 0, +1%, -1%, +2%, -2%, +0.5%
  CHECK(v["params"]["M"] == "8");
  CHECK(v["valid_repetitions"] == 6);
  const Json& wall = v["values"]["wall-time"];
  CHECK(wall["unit"] == "s");  // the results file's ns, in seconds
  CHECK(wall["median"].get<double>() == doctest::Approx(0.0012025).epsilon(1e-12));
  CHECK(wall["n"] == 6);
  CHECK(v["values"]["kernel-time"]["min"].get<double>() == doctest::Approx(0.00098));
  CHECK(v["values"]["instructions"]["unit"] == "");
  CHECK(v["values"]["instructions"]["median"] == 1000);
  CHECK(v["values"]["instructions"]["cv"] == 0);
  // The crashed variant: its failure, and no interval from 5 values.
  CHECK(doc["variants"][4]["failure"] == "signal:SIGSEGV");
  CHECK(doc["variants"][4]["values"]["kernel-time"]["ci95"].is_null());
}

TEST_CASE("the analysis document: ranking, verdict, correlations and effects as numbers") {
  const RunReport report = BuildReport(fixture::Fixture());
  auto a = Analyze(report);
  REQUIRE(a.ok());
  const Json doc = Json::parse(RenderAnalysisJson(*a, report));
  CHECK(doc["schema"] == "ktune-analysis");
  CHECK(doc["version"] == kAnalysisJsonVersion);
  CHECK(doc["time"] == Json{{"name", "kernel-time"}, {"unit", "s"}});
  REQUIRE(doc["ranking"].size() == 4);  // the crashed fifth is left out
  CHECK(doc["ranking"][0]["name"] == "matmul_8_32.elf");
  CHECK(doc["ranking"][0]["label"] == "8_32");
  CHECK(doc["ranking"][0]["median"].get<double>() == doctest::Approx(0.0010025));
  CHECK(doc["ranking"][0]["n"] == 6);
  CHECK(doc["ranking"][3]["rank"] == 4);
  const Json& verdict = doc["verdict"];
  CHECK(verdict["winner"] == "matmul_8_32.elf");
  CHECK(verdict["runner_up"] == "matmul_8_16.elf");
  CHECK(verdict["ratio"].get<double>() == doctest::Approx(2.0));
  CHECK(verdict["test"]["u"] == 0);  // every repetition of one below every one of the other
  CHECK(verdict["test"]["p"].get<double>() == doctest::Approx(a->verdict->test->p_value));
  CHECK(verdict["decision"] == "faster");
  CHECK(verdict["alpha"] == 0.05);
  // l2_miss follows the time exactly; instructions are constant: no r, and why.
  Json l2, instructions;
  for (const Json& c : doc["correlations"]) {
    if (c["name"] == "l2_miss") l2 = c;
    if (c["name"] == "instructions") instructions = c;
  }
  CHECK(l2["n"] == 4);
  CHECK(l2["spearman"]["r"].get<double>() == doctest::Approx(1.0));
  CHECK(l2["problem"].is_null());
  CHECK(instructions["spearman"].is_null());
  CHECK(instructions["problem"] == "constant across variants: correlation undefined");
  CHECK(doc["effects"][0]["param"] == "M");
  CHECK(doc["effects"][0]["levels"][0]["value"] == "4");
  CHECK(doc["why"]["best"] == "matmul_8_32.elf");
  CHECK(doc["variants"].size() == 5);
}

}  // namespace
}  // namespace ktune::host
