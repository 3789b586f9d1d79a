#include <doctest/doctest.h>
#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/fs.h"
#include "host/report/analysis.h"
#include "host/report/compare.h"
#include "host/report/html_report.h"
#include "host/report/json_model.h"
#include "host/report/perf_stats.h"
#include "host/report/plots.h"
#include "host/report/report.h"
#include "host/report/samples_report.h"
#include "host/report/table.h"
#include "host/results/samples.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/host/report/run_fixture.h"
#include "tests/unit/host/results/samples_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using namespace fixture;

RepetitionRow Row(uint32_t variant, uint32_t rep, bool valid, double kernel_s, double wall_ns,
                  double faults) {
  RepetitionRow r;
  r.run_id = "run1";
  r.timestamp_ns = 0;
  r.variant_index = variant;
  r.variant = "v" + std::to_string(variant) + ".elf";
  r.elf = "k/run/bin/" + r.variant;
  r.params = {{"BLOCK_SIZE_M", std::to_string(4 << variant)}};
  r.repetition = rep;
  r.valid = valid;
  r.outcome = valid ? Outcome{OutcomeKind::kExited, 0} : Outcome{OutcomeKind::kSignaled, 11};
  r.values = {
      {kWallTime, wall_ns, "ns", 0, 0, ValueStatus::kOk},
      {kKernelTime, kernel_s, "s", 0, 0, kernel_s > 0 ? ValueStatus::kOk : ValueStatus::kMissing},
      {kTaskClock, wall_ns / 2, "ns", 1, 1, ValueStatus::kOk},
      {"page-faults", faults, "", 1, 1, ValueStatus::kOk},
      {"cycles", 0, "", 0, 0, ValueStatus::kNotSupported}};
  return r;
}

std::vector<RepetitionRow> Sample() {
  return {Row(0, 0, true, 0.30, 3e8, 10), Row(0, 1, true, 0.10, 1e8, 12),
          Row(0, 2, true, 0.20, 2e8, 11),  // variant 0: median 0.2 s
          Row(1, 0, true, 0.05, 5e7, 20), Row(1, 1, true, 0.07, 7e7, 22),  // median 0.06 s
          Row(2, 0, false, 0, 1e6, 5),    Row(2, 1, true, 0.01, 1e7, 6)};  // fast but one crash
}

TEST_CASE("statistics are over valid repetitions; the best is fastest among fully valid") {
  const RunReport r = BuildReport(Sample());
  CHECK(r.run_id == "run1");
  REQUIRE(r.variants.size() == 3);
  CHECK(r.value_names ==
        std::vector<std::string>{kWallTime, kKernelTime, kTaskClock, "page-faults", "cycles"});
  CHECK(*r.variants[0].Find(kKernelTime)->median == doctest::Approx(0.2));
  CHECK(*r.variants[0].Find(kKernelTime)->mean == doctest::Approx(0.2));
  CHECK(*r.variants[1].Find(kKernelTime)->median == doctest::Approx(0.06));
  // Variant 2: only the valid repetition counts.
  CHECK(r.variants[2].valid == 1);
  CHECK(r.variants[2].Find("page-faults")->counted == 1);
  CHECK(*r.variants[2].Find("page-faults")->median == 6);
  CHECK(r.variants[2].failure == "signal:SIGSEGV");
  CHECK(r.variants[0].Find("cycles")->status == ValueStatus::kNotSupported);
  CHECK_FALSE(r.variants[0].Find("cycles")->median.has_value());
  REQUIRE(r.best.has_value());
  CHECK(*r.best == 1);
  CHECK(r.best_by == kKernelTime);
}

TEST_CASE("a run's system check warnings are notes under the table; none without a check") {
  CHECK(SystemNotes(std::nullopt).empty());
  SystemCheck c;
  c.cpu = 1;
  c.governor = "powersave";
  c.aslr = 2;  // shown by the system section, no warning
  CHECK(SystemNotes(c) == std::vector<std::string>{"system: " + SystemWarnings(c).at(0)});
  CHECK(SystemNotes(c)[0].find("governor powersave") != std::string::npos);
}

TEST_CASE("without kernel times the best is ranked by wall time; none valid means no best") {
  std::vector<RepetitionRow> rows = {Row(0, 0, true, 0, 3e8, 1), Row(1, 0, true, 0, 1e8, 1)};
  RunReport r = BuildReport(rows);
  CHECK(r.best_by == kWallTime);
  CHECK(*r.best == 1);
  RunReport none = BuildReport({Row(0, 0, false, 0, 1, 1)});
  CHECK_FALSE(none.best.has_value());
  CHECK(RenderTable(none).find("best: none") != std::string::npos);
  CHECK(none.variants[0].failure == "signal:SIGSEGV");
}

TEST_CASE("perf-stats is the seed's wide CSV") {
  const std::string csv = RenderPerfStats(BuildReport(Sample()));
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header ==
        "Timestamp,ELF Name,BLOCK_SIZE_M,Valid Output,Kernel Time (s),Total Time (s),task-clock,"
        "page-faults,cycles");
  // Variant 0: medians 0.2 s kernel, 0.2 s wall, task-clock in msec, counts as integers.
  CHECK(csv.find(",v0.elf,4,YES,0.200000,0.200000,100.000000,11,N/A\n") != std::string::npos);
  CHECK(csv.find(",v2.elf,16,NO,0.010000,0.010000,5.000000,6,N/A\n") != std::string::npos);
}

TEST_CASE("the sampling run and partly counted values stay out of the statistics") {
  std::vector<RepetitionRow> rows = {Row(0, 0, true, 0.1, 1e8, 10), Row(0, 1, true, 0.1, 1e8, 10)};
  RepetitionRow sampled = Row(0, 2, true, 9.0, 9e9, 999);
  sampled.pass = 1;
  sampled.sampling = true;
  rows.push_back(sampled);
  rows[1].values.push_back({"instructions", 50, "", 100, 40, ValueStatus::kPartial});
  const RunReport r = BuildReport(rows);
  CHECK(r.variants[0].repetitions == 2);
  CHECK(*r.variants[0].Find(kKernelTime)->median == doctest::Approx(0.1));
  CHECK(*r.variants[0].Find("page-faults")->median == 10);
  CHECK(r.variants[0].Find("instructions")->status == ValueStatus::kPartial);
  CHECK_FALSE(r.variants[0].Find("instructions")->median.has_value());
  CHECK(RenderTable(r).find("<partly counted>") != std::string::npos);
}

TEST_CASE("perf-stats gives N/A for a variant that never ran correctly") {
  const std::string csv = RenderPerfStats(BuildReport({Row(0, 0, false, 0.5, 1e9, 7)}));
  CHECK(csv.find(",v0.elf,4,NO,N/A,N/A,N/A,N/A,N/A\n") != std::string::npos);
}

TEST_CASE("a multiplexed value shows how much of the run it was counted") {
  std::vector<RepetitionRow> rows = {Row(0, 0, true, 0.1, 1e8, 1), Row(0, 1, true, 0.1, 1e8, 1)};
  rows[0].values.push_back({"instructions", 500, "", 1000, 500, ValueStatus::kOk});
  rows[1].values.push_back({"instructions", 800, "", 1000, 800, ValueStatus::kOk});
  const RunReport r = BuildReport(rows);
  CHECK(*r.variants[0].Find("instructions")->coverage == doctest::Approx(0.5));
  CHECK_FALSE(r.variants[0].Find("page-faults")->coverage.has_value());
  CHECK_MESSAGE(RenderTable(r).find("650 (50% counted)") != std::string::npos, RenderTable(r));
  CHECK(RenderReportJson(r).find("\"coverage\": 0.5") != std::string::npos);
}

TEST_CASE("metrics are evaluated from each variant's medians, problems said as such") {
  std::vector<MetricDef> metrics;
  for (auto [name, formula] : {std::pair{"faults per second", "{page-faults} / kernel_time"},
                               std::pair{"task share", "task_clock / wall_time"},
                               std::pair{"cycles per fault", "cycles / {page-faults}"},
                               std::pair{"zero", "{page-faults} / (wall_time - wall_time)"}}) {
    metrics.push_back(MakeMetric(name, formula, "g").value());
  }
  const RunReport r = BuildReport(Sample(), metrics);
  CHECK(r.metric_names.size() == 4);
  const VariantSummary& v0 = r.variants[0];  // medians: 11 faults, 0.2 s kernel, wall 0.2 s
  CHECK(*v0.metrics[0].value == doctest::Approx(55));
  CHECK(*v0.metrics[1].value == doctest::Approx(0.5));
  CHECK(v0.metrics[2].problem == "missing input cycles");  // not supported here
  CHECK(v0.metrics[3].problem == "division by zero");
  const std::string table = RenderTable(r);
  CHECK(table.find("faults per second") != std::string::npos);
  CHECK(table.find("<missing input cycles>") != std::string::npos);
  const std::string json = RenderReportJson(r);
  CHECK(json.find("\"problem\": \"division by zero\"") != std::string::npos);
  CHECK(json.find("\"group\": \"g\"") != std::string::npos);
}

TEST_CASE("the table shows statuses in perf's words and marks the best") {
  const std::string t = RenderTable(BuildReport(Sample()));
  CHECK(t.find("<not supported>") != std::string::npos);
  CHECK(t.find("1/2 signal:SIGSEGV") != std::string::npos);
  CHECK(t.find("*  v1.elf") != std::string::npos);
  CHECK(t.find("best: v1.elf (kernel-time 60 ms)") != std::string::npos);
}

TEST_CASE("fitted to a width, the report collapses <not supported> and shortens what it must") {
  const RunReport report = BuildReport(Sample());
  // In full (--wide): every column, perf's words in every row.
  CHECK(RenderTable(report, false, 0).find("<not supported>") != std::string::npos);
  const std::string wide = RenderTable(report, false, 1000);
  CHECK(wide.find("<not supported>") == std::string::npos);
  CHECK(wide.find("\nnot supported: cycles\n") != std::string::npos);
  CHECK(wide.find("BLOCK_SIZE_M") != std::string::npos);  // fits: nothing shortened
  CHECK(wide.find("columns:") == std::string::npos);
  // Narrow: perf's short names replace the events' (page-faults is "faults"; a lone parameter
  // shares no prefix to drop), then the variants lose what their names share; each said once.
  const std::string narrow = RenderTable(report, false, 40);
  CHECK(narrow.find("columns: faults = page-faults\n") != std::string::npos);
  CHECK(narrow.find("\nvariant: ....elf\n") != std::string::npos);
  CHECK(narrow.find("*  v1 ") != std::string::npos);
  // The numbers are the same in every fitting.
  CHECK(narrow.find("1/2 signal:SIGSEGV") != std::string::npos);
  CHECK(wide.find("best: v1.elf (kernel-time 60 ms)") != std::string::npos);
}

TEST_CASE("json carries every statistic and null where none exists") {
  const std::string j = RenderReportJson(BuildReport(Sample()));
  CHECK(j.find("\"best\": \"v1.elf\"") != std::string::npos);
  CHECK(j.find("\"status\": \"not supported\"") != std::string::npos);
  CHECK(j.find("\"median\": null") != std::string::npos);
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
  // Its variant's times now vary by far more than 10% of their mean: named as noisy too.
  const auto note = [&o](const std::string& start) -> std::string {
    for (const std::string& n : o.notes) {
      if (n.rfind(start, 0) == 0) return n;
    }
    return "";
  };
  CHECK(note("outlying kernel-time").find("matmul_4_16.elf (repetition 1)") != std::string::npos);
  CHECK(note("noisy kernel-time: matmul_4_16.elf (CV ").find("over 10% of the mean") !=
        std::string::npos);
  // The fixture's own spread (CV 1.5%) is not noisy.
  CHECK_FALSE(NoisyTimesNote(BuildReport(Fixture()), kKernelTime).has_value());
}

TEST_CASE("the kernel symbol's period becomes the seed's perf-stats column") {
  const ElfSymbol k = *ElfImage::Parse(Bytes("spin.elf"))->Find("spin_kernel");
  const auto samples =
      Symbolize({Record(k.addr)}, {{0, {"spin.elf", "spin.elf"}}}, KTUNE_ELVES_DIR, "spin_kernel");
  const SampledColumns cols = KernelPeriodColumns(samples, "spin_kernel");
  CHECK(cols.names == std::vector<std::string>{"cpu-clock:u (spin_kernel period)"});
  RepetitionRow row;
  row.run_id = "r";
  row.variant = "spin.elf";
  row.valid = true;
  row.values = {{kWallTime, 1e6, "ns", 0, 0, ValueStatus::kOk}};
  const std::string csv = RenderPerfStats(BuildReport({row}), cols);
  CHECK(csv.find(",cpu-clock:u (spin_kernel period)\n") != std::string::npos);
  CHECK(csv.substr(csv.size() - 5) == ",300\n");
  CHECK(NotSupported("cycles: No such file or directory") ==
        "cycles: not supported (No such file or directory)");
}

}  // namespace
}  // namespace ktune::host
