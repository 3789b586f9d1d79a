// A run of several shapes: its rows split by shape, each shape's winner, the relative times and
// the best overall, on runs whose answers are known; and the report's per-shape best.
#include "host/report/shapes_report.h"

#include <doctest/doctest.h>

#include "host/report/analysis.h"
#include "host/report/report.h"

namespace ktune::host {
namespace {

const double kJitter[] = {0, 0.01, -0.01, 0.02, -0.02, 0.005};

// Six repetitions of configuration `b` (parameter B) at shape M=`m`, taking `seconds` each.
void Add(std::vector<RepetitionRow>* rows, uint32_t index, int b, int m, double seconds,
         bool valid = true) {
  for (uint32_t rep = 0; rep < 6; ++rep) {
    RepetitionRow r;
    r.run_id = "run";
    r.variant_index = index;
    r.variant = "k_" + std::to_string(b) + ".elf";
    r.params = {{"B", std::to_string(b)}};
    r.shape = {{"M", std::to_string(m)}};
    r.repetition = rep;
    r.valid = valid;
    r.outcome = valid ? Outcome{OutcomeKind::kExited, 0} : Outcome{OutcomeKind::kSignaled, 11};
    const double t = seconds * (1 + kJitter[rep]);
    r.values = {{kWallTime, t * 1e9, "ns", 0, 0, ValueStatus::kOk},
                {kKernelTime, t, "s", 0, 0, ValueStatus::kOk}};
    rows->push_back(r);
  }
}

// B=1 wins at M=64 (1 ms vs 2 ms), B=2 at M=1024 (4 ms vs 10 ms); B=3 is 1.2x off at both
// (best overall: geometric mean 1.2 against B=1's sqrt(2.5) = 1.58 and B=2's sqrt(2) = 1.41).
std::vector<RepetitionRow> TwoShapes() {
  std::vector<RepetitionRow> rows;
  Add(&rows, 0, 1, 64, 0.001);
  Add(&rows, 1, 1, 1024, 0.010);
  Add(&rows, 2, 2, 64, 0.002);
  Add(&rows, 3, 2, 1024, 0.004);
  Add(&rows, 4, 3, 64, 0.0012);
  Add(&rows, 5, 3, 1024, 0.0048);
  return rows;
}

std::vector<ShapeAnalysis> Analyzed(const std::vector<RepetitionRow>& rows) {
  std::vector<ShapeAnalysis> out;
  for (const ShapeRows& s : SplitByShape(rows)) {
    ShapeAnalysis sa{s.shape, BuildReport(s.rows), std::nullopt, ""};
    auto a = Analyze(sa.report);
    if (a.ok()) {
      sa.analysis = *a;
    } else {
      sa.problem = a.status().message();
    }
    out.push_back(std::move(sa));
  }
  return out;
}

TEST_CASE("rows split by shape, in the order of each shape's first variant, renumbered") {
  std::vector<RepetitionRow> rows = TwoShapes();
  std::swap(rows.front(), rows.back());  // rounds shuffle the order
  CHECK(SeveralShapes(rows));
  const std::vector<ShapeRows> split = SplitByShape(rows);
  REQUIRE(split.size() == 2);
  CHECK(split[0].shape == Params{{"M", "64"}});
  CHECK(split[1].shape == Params{{"M", "1024"}});
  CHECK(split[0].rows.size() == 18);
  for (const RepetitionRow& r : split[1].rows) {
    CHECK(r.variant_index == (r.params[0].second == "1"   ? 0u
                              : r.params[0].second == "2" ? 1u
                                                          : 2u));
  }
  std::vector<RepetitionRow> one;
  Add(&one, 0, 1, 64, 0.001);
  CHECK_FALSE(SeveralShapes(one));
  CHECK(SplitByShape(one).size() == 1);
  CHECK(SplitByShape({}).empty());
  CHECK(ShapeLabel({{"M", "64"}, {"N", "8"}}) == "M=64 N=8");
  CHECK(ShapeLabel({}) == "(no shape)");
  CHECK(ShapeDirName({{"M", "64"}, {"N", "8"}}) == "M=64,N=8");
  CHECK(ShapeDirName({{"M", "a/../../x"}}).empty());  // never a path
  CHECK(ShapeDirName({{"../M", "1"}}).empty());
  CHECK(ShapeDirName({{"M", ""}}).empty());
}

TEST_CASE("each shape's winner, relative times and the best overall by geometric mean") {
  const AcrossShapes x = CompareShapes(Analyzed(TwoShapes()));
  REQUIRE(x.shapes.size() == 2);
  REQUIRE(x.configs.size() == 3);
  REQUIRE(x.winners[0]);
  REQUIRE(x.winners[1]);
  CHECK(x.configs[x.winners[0]->config] == Params{{"B", "1"}});
  CHECK(x.configs[x.winners[1]->config] == Params{{"B", "2"}});
  CHECK(x.winners[0]->named);  // 2x apart with 6 repetitions each: distinguishable
  CHECK(x.winners[0]->median == doctest::Approx(0.001).epsilon(0.01));
  REQUIRE(x.overall);
  CHECK(x.configs[*x.overall] == Params{{"B", "3"}});
  CHECK(*x.overall_geomean == doctest::Approx(1.2).epsilon(0.02));
  for (size_t c = 0; c < 3; ++c) {
    const std::string b = x.configs[c][0].second;
    const double at64 = b == "1" ? 1 : b == "2" ? 2 : 1.2;
    const double at1024 = b == "1" ? 2.5 : b == "2" ? 1 : 1.2;
    CHECK(*x.relative[c][0] == doctest::Approx(at64).epsilon(0.02));
    CHECK(*x.relative[c][1] == doctest::Approx(at1024).epsilon(0.02));
  }
  const std::vector<Table> tables = AcrossShapesTables(x);
  REQUIRE(tables.size() == 2);
  CHECK(tables[0].rows.size() == 2);
  CHECK(tables[0].rows[0][1] == "B=1");
  CHECK(tables[0].notes[0].find("Best overall: B=3") == 0);
  CHECK(tables[1].rows[0][0] == "3");  // the best overall first
}

TEST_CASE("a configuration missing at a shape, or failing there, cannot be best overall") {
  std::vector<RepetitionRow> rows;
  Add(&rows, 0, 1, 64, 0.001);
  Add(&rows, 1, 1, 1024, 0.004, /*valid=*/false);
  Add(&rows, 2, 2, 64, 0.003);
  Add(&rows, 3, 2, 1024, 0.009);
  Add(&rows, 4, 3, 64, 0.0012);  // not run at M=1024 (its constraints)
  const AcrossShapes x = CompareShapes(Analyzed(rows));
  REQUIRE(x.overall);
  CHECK(x.configs[*x.overall] == Params{{"B", "2"}});
  size_t b1 = 0;
  while (x.configs[b1] != Params{{"B", "1"}}) ++b1;
  CHECK_FALSE(x.relative[b1][1]);
  CHECK_FALSE(x.geomean[b1]);

  std::vector<RepetitionRow> none;  // nothing runs at both
  Add(&none, 0, 1, 64, 0.001);
  Add(&none, 1, 2, 1024, 0.002);
  const AcrossShapes y = CompareShapes(Analyzed(none));
  CHECK_FALSE(y.overall);
  CHECK(AcrossShapesTables(y)[0].notes[0].find("none is best overall") != std::string::npos);
}

TEST_CASE("the report of a run of several shapes names a best per shape, none across them") {
  const RunReport r = BuildReport(TwoShapes());
  CHECK_FALSE(r.best);
  CHECK(r.shape_names == std::vector<std::string>{"M"});
  REQUIRE(r.shape_best.size() == 2);
  CHECK(r.shape_best[0].first == Params{{"M", "64"}});
  REQUIRE(r.shape_best[0].second);
  CHECK(r.variants[*r.shape_best[0].second].params == Params{{"B", "1"}});
  CHECK(r.variants[*r.shape_best[1].second].params == Params{{"B", "2"}});
  const Table t = ReportTable(r);
  CHECK(std::find(t.columns.begin(), t.columns.end(), "M") != t.columns.end());
  CHECK(t.notes[0].find("best at M=64: k_1.elf") == 0);
  CHECK(t.notes[1].find("best at M=1024: k_2.elf") == 0);
}

}  // namespace
}  // namespace ktune::host
