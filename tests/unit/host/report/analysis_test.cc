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
#include "host/report/analysis_tables.h"
#include "host/report/compare.h"
#include "host/report/html_report.h"
#include "host/report/plots.h"
#include "host/report/report.h"
#include "host/report/table.h"
#include "tests/unit/host/report/run_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

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

// Two variants `ratio` apart over 10 interleaved repetitions, the machine `late` times slower from
// repetition 5 on (a job started halfway).
std::vector<RepetitionRow> Drifting(double ratio, double late) {
  std::vector<RepetitionRow> rows;
  for (uint32_t rep = 0; rep < 10; ++rep) {
    for (uint32_t i = 0; i < 2; ++i) {
      RepetitionRow r;
      r.run_id = "drift";
      r.variant_index = i;
      r.variant = i ? "slow.elf" : "fast.elf";
      r.repetition = rep;
      r.valid = true;
      const double t = (i ? ratio : 1.0) * (rep < 5 ? 1 : late) * (1 + kJitter[rep % 6] / 10);
      r.values = {{kWallTime, t * 1e9, "ns", 0, 0, ValueStatus::kOk}};
      rows.push_back(r);
    }
  }
  return rows;
}

TEST_CASE("analysis: a drift as large as the top two's difference makes the verdict unstable") {
  // 3% apart, the machine twice as slow halfway: each variant's median lands between its clean
  // and its slowed times, and no test of the two can be trusted.
  auto unstable = Analyze(BuildReport(Drifting(1.03, 2.0)));
  REQUIRE(unstable.ok());
  REQUIRE(unstable->verdict.has_value());
  CHECK(unstable->verdict->unstable);
  CHECK_FALSE(unstable->verdict->distinguishable);
  CHECK(unstable->verdict->text.rfind("unstable: the times drifted by +", 0) == 0);
  CHECK(unstable->verdict->text.find("between fast.elf and slow.elf") != std::string::npos);
  REQUIRE(unstable->drift.has_value());
  CHECK(unstable->drift->change > 0.5);
  // Measured in interleaved rounds, each round ran both side by side: the runner-up is slower in
  // all 10 rounds (sign test p = 2 / 2^10), so the drift cancels in the pairs.
  AnalyzeOptions interleaved;
  interleaved.interleaved = true;
  auto paired = Analyze(BuildReport(Drifting(1.03, 2.0)), interleaved);
  REQUIRE(paired.ok());
  CHECK_FALSE(paired->verdict->unstable);
  CHECK(paired->verdict->distinguishable);
  REQUIRE(paired->verdict->rounds.has_value());
  CHECK(paired->verdict->rounds->positive == 10);
  CHECK(paired->verdict->rounds->p_value == doctest::Approx(2.0 / 1024));
  CHECK(paired->verdict->text.rfind("fast.elf is faster than the runner-up slow.elf in 10 of 10 "
                                    "rounds (sign test p = 0.0020), though the times drifted by +",
                                    0) == 0);
  // 2x apart with a drift of 1%: the winner stands, the drift is a note.
  auto clear = Analyze(BuildReport(Drifting(2.0, 1.01)));
  REQUIRE(clear.ok());
  CHECK_FALSE(clear->verdict->unstable);
  CHECK(clear->verdict->distinguishable);
  CHECK(clear->verdict->text.find("fast.elf is faster") != std::string::npos);
  bool noted = false;
  for (const std::string& n : clear->notes)
    noted = noted || n.find("less than the 100.0%") != std::string::npos;
  CHECK(noted);
  // No drift: no note, no change of verdict.
  auto steady = Analyze(BuildReport(Drifting(1.5, 1.0)));
  REQUIRE(steady.ok());
  CHECK_FALSE(steady->verdict->unstable);
  CHECK(steady->verdict->distinguishable);
}

TEST_CASE("analysis: an unstable verdict says how the machine's frequency and heat changed") {
  // The same drift, the rows carrying the CPU's frequency (1600 MHz, then 1200 from repetition 5
  // on) and the hottest zone (50 C, then 80 C), as agentd reads them each round. They are the
  // machine's, not the kernel's: no value of the report, a note under it, and the drift's reason.
  std::vector<RepetitionRow> rows = Drifting(1.03, 2.0);
  for (size_t k = 0; k < rows.size(); ++k) {
    const bool late = rows[k].repetition >= 5;
    rows[k].timestamp_ns = static_cast<int64_t>(k);
    rows[k].values.push_back({kCpuFrequency, late ? 1200.0 : 1600.0, "MHz"});
    rows[k].values.push_back({kTemperature, late ? 80.0 : 50.0, "C"});
  }
  const RunReport report = BuildReport(rows);
  CHECK(report.value_names == std::vector<std::string>{kWallTime});
  const std::string change =
      "the CPU's frequency ranged from 1200 to 1600 MHz (1600 at the start, 1200 at the end); "
      "the hottest thermal zone went from 50 C to 80 C (80 C at most)";
  CHECK(std::find(report.notes.begin(), report.notes.end(), "machine: " + change) !=
        report.notes.end());
  auto a = Analyze(report);
  REQUIRE(a.ok());
  CHECK(a->verdict->unstable);
  CHECK(a->verdict->text.find("times; meanwhile " + change + "), as much as the 3.0%") !=
        std::string::npos);
}

TEST_CASE("analysis places each ranked variant on the roofline from the work it declares") {
  RunReport report = BuildReport(Fixture());
  auto bare = Analyze(report);
  REQUIRE(bare.ok());
  CHECK(bare->roofline.empty());
  CHECK(bare->roofline_note.starts_with("no roofline: the variants declare no work"));
  // Every variant does 2 MFLOP over 1 MB (intensity 2) per call: 8_32 in about 1 ms makes about
  // 2 GFLOP/s and 1 GB/s, 4_16 in about 4 ms a quarter of that (the fixture's medians are 0.2%
  // above the round figures).
  for (VariantSummary& v : report.variants) v.work = {2e6, 1e6};
  auto a = Analyze(report);
  REQUIRE(a.ok());
  CHECK(a->roofline_note.empty());
  REQUIRE(a->roofline.size() == 4);  // the ranked ones, in ranking order
  CHECK(a->roofline[0].variant == a->ranking[0].variant);
  const double fastest_s = a->ranking[0].median, slowest_s = a->ranking[3].median;
  CHECK(*a->roofline[0].gflops == doctest::Approx(2e6 / fastest_s / 1e9));
  CHECK(*a->roofline[0].gflops == doctest::Approx(2).epsilon(0.01));
  CHECK(*a->roofline[0].gbytes_s == doctest::Approx(1e6 / fastest_s / 1e9));
  CHECK(*a->roofline[0].intensity == doctest::Approx(2));
  CHECK(*a->roofline[3].gflops == doctest::Approx(2e6 / slowest_s / 1e9));
  CHECK_FALSE(a->has_ceilings);
  CHECK(a->verdict->text.ends_with("; the winner reaches " + PlacementSentence(a->roofline[0])));
  CHECK(a->verdict->text.ends_with(" GB/s, 2 FLOP/byte"));
  // Under a board of 8 GFLOP/s fp32 and 2 GB/s from DRAM (1 MB is beyond its 512 KiB L2): the
  // attainable rate at intensity 2 is min(8, 2 x 2) = 4 GFLOP/s, of which 8_32 reaches half.
  AnalyzeOptions options;
  options.ceilings =
      Ceilings{{{"fp32 vector", "fp32", 8}}, {{"L2", 512 << 10, 16}, {"DRAM", 0, 2}}};
  auto placed = Analyze(report, options);
  REQUIRE(placed.ok());
  CHECK(placed->has_ceilings);
  CHECK(placed->roofline[0].level == "DRAM");
  CHECK(*placed->roofline[0].attainable_gflops == doctest::Approx(4));
  CHECK(*placed->roofline[0].fraction == doctest::Approx(2e6 / fastest_s / 1e9 / 4));
  CHECK(
      placed->verdict->text.ends_with("; the winner reaches 49.9% of the board's attainable "
                                      "peak at its intensity (1.995 GFLOP/s, 0.9975 GB/s, 2 "
                                      "FLOP/byte), memory-bound at DRAM"));
  const std::vector<Table> tables = AnalysisTables(*placed, report);
  CHECK(tables.back().title.starts_with("roofline: "));
  CHECK(tables.back().columns.back() == "bound");
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
