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

const CounterCorrelation* FindCorrelation(const Analysis& a, const std::string& name) {
  for (const CounterCorrelation& c : a.correlations) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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

TEST_CASE("tables render as aligned console text, CSV, JSON and Markdown") {
  Table t;
  t.title = "things";
  t.columns = {"name", "count"};
  t.AddRow({"a|b", "7"}, RowStyle::kGood);
  t.AddRow({"longer", "12345"});
  t.notes = {"note: two rows"};
  CHECK(RenderConsole(t) ==
        "things\nname    count\na|b         7\nlonger  12345\nnote: two rows\n");
  CHECK(RenderConsole(t, true).find("\x1b[32ma|b         7\x1b[0m\n") != std::string::npos);
  CHECK(RenderCsv(t) == "name,count\na|b,7\nlonger,12345\n");
  CHECK(RenderMarkdown(t) ==
        "**things**\n\n| name | count |\n| --- | ---: |\n| a\\|b | 7 |\n| longer | 12345 |\n"
        "\n- note: two rows\n");
  CHECK(
      RenderJson(t) ==
      "{\n  \"title\": \"things\",\n  \"rows\": [\n    {\n      \"name\": \"a|b\",\n"
      "      \"count\": \"7\"\n    },\n    {\n      \"name\": \"longer\",\n"
      "      \"count\": \"12345\"\n    }\n  ],\n  \"notes\": [\n    \"note: two rows\"\n  ]\n}\n");
  // JSON keys stay unique when headers repeat (a parameter named like a column).
  Table dup;
  dup.columns = {"n", "n"};
  dup.AddRow({"1", "2"});
  CHECK(RenderJson(dup).find("\"n\": \"1\",\n      \"n (2)\": \"2\"") != std::string::npos);
  TableFormat f;
  CHECK(ParseTableFormat("md", &f));
  CHECK(f == TableFormat::kMarkdown);
  CHECK_FALSE(ParseTableFormat("xml", &f));
  CHECK(RenderAll({t, t}, TableFormat::kCsv) ==
        "# things\nname,count\na|b,7\nlonger,12345\n\n# things\nname,count\na|b,7\nlonger,12345\n");
}

TEST_CASE("per-variant statistics: interval, spread and outliers, with a note when too few") {
  const RunReport r = BuildReport(Fixture());
  const ValueSummary* t = r.variants[3].Find(kKernelTime);
  REQUIRE(t != nullptr);
  REQUIRE(t->ci.has_value());  // six repetitions: [min, max] at 96.9%
  CHECK(t->ci->low == doctest::Approx(0.001 * 0.98));
  CHECK(t->ci->high == doctest::Approx(0.001 * 1.02));
  CHECK(t->cv.has_value());
  CHECK(t->outliers.empty());
  CHECK(t->sample.size() == 6);
  // The crashing variant has five valid repetitions: too few for its interval.
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].starts_with("at most 5 repetition(s) of some variant"));
  // Three repetitions: no interval, and the report says why.
  std::vector<RepetitionRow> few;
  for (const RepetitionRow& row : Fixture()) {
    if (row.repetition < 3) few.push_back(row);
  }
  const RunReport f = BuildReport(few);
  CHECK_FALSE(f.variants[0].Find(kKernelTime)->ci.has_value());
  REQUIRE(f.notes.size() == 1);
  CHECK(f.notes[0] ==
        "at most 2 repetition(s) of some variant: a 95% confidence interval of the "
        "median needs 6 (khost run --reps 6)");
  // An outlying repetition is named.
  std::vector<RepetitionRow> rows = Fixture();
  rows[1].values[1].value = 0.04;  // variant 0, repetition 1: ten times the others
  const RunReport o = BuildReport(rows);
  CHECK(o.variants[0].Find(kKernelTime)->outliers == std::vector<uint32_t>{1});
  REQUIRE_FALSE(o.notes.empty());
  CHECK(o.notes.back().find("matmul_4_16.elf (repetition 1)") != std::string::npos);
}

TEST_CASE("analysis: ranking, the winner's test, correlations, effects and why it wins") {
  const RunReport report = BuildReport(Fixture());
  auto analyzed = Analyze(report);
  REQUIRE(analyzed.ok());
  const Analysis& a = *analyzed;
  CHECK(a.time_name == kKernelTime);
  REQUIRE(a.ranking.size() == 4);
  CHECK(VariantLabel(report.variants[a.ranking[0].variant]) == "8_32");
  CHECK(VariantLabel(report.variants[a.ranking[3].variant]) == "4_16");
  // The crashing variant is left out, and said so.
  REQUIRE(a.notes.size() == 1);
  CHECK(a.notes[0].find("matmul_16_16.elf (5/6 valid, signal:SIGSEGV)") != std::string::npos);
  // 6 against 6 repetitions with no overlap: exact p = 2 / C(12, 6).
  REQUIRE(a.verdict.has_value());
  CHECK(a.verdict->distinguishable);
  CHECK(a.verdict->ratio == doctest::Approx(2.0));
  REQUIRE(a.verdict->test.has_value());
  CHECK(a.verdict->test->exact);
  CHECK(a.verdict->test->p_value == doctest::Approx(2.0 / 924));
  CHECK(a.verdict->text.find("8_32 is faster than the runner-up 8_16") != std::string::npos);
  // l2_miss follows the time exactly; instructions never change; branches say little.
  const CounterCorrelation* l2 = FindCorrelation(a, "l2_miss");
  REQUIRE(l2 != nullptr);
  REQUIRE(l2->spearman.has_value());
  CHECK(l2->spearman->r == doctest::Approx(1));
  CHECK(l2->pearson->r > 0.99);
  const CounterCorrelation* constant = FindCorrelation(a, "instructions");
  REQUIRE(constant != nullptr);
  CHECK_FALSE(constant->spearman.has_value());
  CHECK(constant->problem == "constant across variants: correlation undefined");
  CHECK(a.correlations.back().name == "instructions");  // undefined ranks last
  // Parameters are not correlated; their effect is the median time at each value.
  CHECK(FindCorrelation(a, "M") == nullptr);
  REQUIRE(a.effects.size() == 2);
  CHECK(a.effects[0].param == "M");
  REQUIRE(a.effects[0].levels.size() == 2);
  CHECK(a.effects[0].levels[0].value == "4");
  CHECK(a.effects[0].levels[0].median == doctest::Approx(0.0035));
  CHECK(a.effects[0].levels[1].median == doctest::Approx(0.0015));
  CHECK(a.effects[0].spread == doctest::Approx(0.0035 / 0.0015));
  // Against the median variant (8_16): twice as fast, half the L2 misses.
  REQUIRE(a.why.has_value());
  CHECK(a.why->reference == 1);
  CHECK(a.why->speedup == doctest::Approx(2.0));
  CHECK(a.why->sentence.find("8_32 is 2.00x faster than 8_16 (the median variant)") == 0);
  CHECK(a.why->sentence.find("l2_miss 2.00x fewer") != std::string::npos);
  // The seed's high_correlations.csv: Pearson, |r| > 0.7.
  const std::string high = HighCorrelationsCsv(a);
  CHECK(high.starts_with("Metric,Correlation,P-Value\n"));
  CHECK(high.find("\nl2_miss,") != std::string::npos);
  CHECK(high.find("instructions") == std::string::npos);
  CHECK(high.find("branches") == std::string::npos);
}

TEST_CASE("analysis of bad runs: one variant, none valid, and never a NaN printed") {
  std::vector<RepetitionRow> one;
  for (const RepetitionRow& r : Fixture()) {
    if (r.variant_index == 0) one.push_back(r);
  }
  const RunReport single = BuildReport(one);
  auto a = Analyze(single);
  REQUIRE(a.ok());
  CHECK_FALSE(a->verdict.has_value());
  CHECK_FALSE(a->why.has_value());
  CHECK(a->notes.back() == "only one valid variant: nothing to compare it with or to correlate");
  for (const CounterCorrelation& c : a->correlations) {
    CHECK(c.problem == "fewer than 3 variants with a value");
  }
  for (TableFormat f :
       {TableFormat::kConsole, TableFormat::kCsv, TableFormat::kJson, TableFormat::kMarkdown}) {
    const std::string text = Lower(RenderAll(AnalysisTables(*a, single), f));
    CHECK(text.find("nan") == std::string::npos);
    CHECK(text.find("inf") == std::string::npos);
  }
  std::vector<RepetitionRow> broken = Fixture();
  for (RepetitionRow& r : broken) {
    if (r.repetition == 0) {
      r.valid = false;
      r.outcome = Outcome{OutcomeKind::kExited, 1};
    }
  }
  auto none = Analyze(BuildReport(broken));
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message() ==
        "no variant of run run-fixture was valid in every repetition: nothing to rank "
        "(5 variants, all failed)");
}

TEST_CASE("parameter values sort as numbers, then as text; counters' plot names stay apart") {
  std::vector<RepetitionRow> rows = Fixture();
  const char* values[] = {"10", "1k", "9", "nan", "2"};
  for (RepetitionRow& r : rows) {
    r.params[0].second = values[r.variant_index];
    r.valid = true;
    r.outcome = Outcome{OutcomeKind::kExited, 0};
    r.values.push_back({"x:u", r.values[1].value * 3, "", 1, 1, ValueStatus::kOk});
    r.values.push_back({"x_u", r.values[1].value * 2, "", 1, 1, ValueStatus::kOk});
  }
  const RunReport report = BuildReport(rows);
  const Analysis a = Analyze(report).value();
  std::vector<std::string> levels;
  for (const ParamLevel& l : a.effects[0].levels) levels.push_back(l.value);
  CHECK(levels == std::vector<std::string>{"2", "9", "10", "1k", "nan"});
  PlotOptions options;
  options.counters = 10;
  auto plots = PlanPlots(a, report, options);
  REQUIRE(plots.ok());
  std::vector<std::string> names;
  for (const Plot& p : *plots) names.push_back(p.name);
  CHECK(std::count(names.begin(), names.end(), "time_vs_x_u") == 1);
  CHECK(std::count(names.begin(), names.end(), "time_vs_x_u_2") == 1);
  for (const Plot& p : *plots) {
    if (p.name == "time_vs_x_u_2") CHECK(p.script.find("'time_vs_x_u_2.dat'") != std::string::npos);
  }
}

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

TEST_CASE("golden renderings: report and analysis tables in every format, and the HTML") {
  const RunReport report = BuildReport(Fixture());
  const Analysis a = Analyze(report).value();
  const std::vector<Table> tables = AnalysisTables(a, report);
  CheckGolden("report.txt", RenderTable(report));
  CheckGolden("report.md", RenderMarkdown(ReportTable(report)));
  CheckGolden("analysis.txt", RenderAll(tables, TableFormat::kConsole));
  CheckGolden("analysis.md", RenderAll(tables, TableFormat::kMarkdown));
  CheckGolden("analysis.csv", RenderAll(tables, TableFormat::kCsv));
  CheckGolden("analysis.json", RenderAll(tables, TableFormat::kJson));
  CheckGolden("high_correlations.csv", HighCorrelationsCsv(a));
  HtmlInputs in;
  in.kernel = "matmul";
  in.about = "agent 127.0.0.1:7178, riscv64 <test> & co";
  in.plots = {{"time_by_variant", "<?xml version=\"1.0\"?>\n<svg id=\"t\"></svg>\n"}};
  const std::string html = RenderHtmlReport(a, report, in);
  CHECK(html.find("riscv64 &lt;test&gt; &amp; co") != std::string::npos);
  CHECK(html.find("<?xml") == std::string::npos);  // the SVG goes in without its prolog
  CHECK(html.find("<svg id=\"t\">") != std::string::npos);
  CheckGolden("report.html", html);
}

}  // namespace
}  // namespace ktune::host
