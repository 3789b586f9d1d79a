// The tuning database's benchmark (issue 35): how fast runs go in, and how fast khost best
// answers, on SQLite and on PostgreSQL, each beside its anchor measured in the same process.
//
//   db_ingest [--lines N] [--sqlite PATH] [--pg URL]
//
// Synthetic runs of one kernel on one board (50 variants, 25 repetitions, 8 values each: 10,000
// lines a run) up to N lines (default 1,000,000), then:
//   - bulk: every run recorded as khost db import records it (TuningDb::RecordRun, one
//     transaction a run), in lines per second; anchor: the same lines written as the results CSV
//     (ToCsvLines, one write a run), what every run writes anyway;
//   - streaming: the rows of one run added as the run service's recorder adds them, a batch of
//     1,000 rows at a time (more than a run's agent sends in its 0.25 s between flushes), in ms a
//     batch; anchor: the batch's CSV lines written;
//   - best: TuningDb::Best on the database of N lines, median of 20, in ms; anchor: loading and
//     merging one run's CSV (what answering took before the database: reading a run).
// Markdown on stdout.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/strings.h"
#include "host/db/tuning_db.h"
#include "host/results/results_dir.h"

namespace ktune::host {
namespace {

constexpr uint32_t kVariants = 50, kReps = 25, kValues = 8;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<RepetitionRow> RunRows(const std::string& run_id, int64_t start_ns) {
  std::vector<RepetitionRow> rows;
  for (uint32_t rep = 0; rep < kReps; ++rep) {
    for (uint32_t v = 0; v < kVariants; ++v) {
      RepetitionRow r;
      r.run_id = run_id;
      r.board = "riscv64:spacemit-x60";
      r.timestamp_ns = start_ns + (rep * kVariants + v) * 1'000'000;
      r.variant_index = v;
      r.variant = "matmul_" + std::to_string(v) + ".elf";
      r.elf = "matmul/run/bin/" + r.variant;
      r.elf_hash = "h" + std::to_string(v);
      r.params = {{"BLOCK_SIZE_M", std::to_string(4 << (v % 5))},
                  {"BLOCK_SIZE_N", std::to_string(v)}};
      r.shape = {{"M", "256"}, {"N", "256"}, {"K", "256"}};
      r.repetition = rep;
      r.valid = true;
      r.values.push_back(
          {kKernelTime, 1e-3 * (1 + v % 7) * (1 + 0.01 * rep), "s", 0, 0, ValueStatus::kOk});
      r.values.push_back({kWallTime, 1.2e6 * (1 + v % 7), "ns", 0, 0, ValueStatus::kOk});
      for (uint32_t k = 2; k < kValues; ++k) {
        r.values.push_back(
            {"event" + std::to_string(k), 1e6 * k + v, "", 1000, 1000, ValueStatus::kOk});
      }
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

RunMeta MetaOf(const std::string& run_id) {
  RunMeta meta;
  meta.run_id = run_id;
  meta.kernel = "matmul";
  meta.agent = "k1";
  meta.cpu = "SpacemiT X60";
  meta.complete = true;
  meta.method = "bench";
  return meta;
}

std::string CsvOf(const std::vector<RepetitionRow>& rows) {
  std::string csv = std::string(kResultsHeader) + "\n";
  for (const RepetitionRow& r : rows) csv += ToCsvLines(r);
  return csv;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Bench(const std::string& backend, const std::string& url, size_t lines,
          const std::string& scratch) {
  auto db = TuningDb::Open({url, backend});
  if (!db.ok()) {
    std::cerr << "db_ingest: " << db.status().message() << "\n";
    return 1;
  }
  const size_t per_run = size_t{kVariants} * kReps * kValues;
  const size_t runs = std::max<size_t>(1, lines / per_run);
  double db_s = 0, csv_s = 0;
  std::string last_csv;  // the run id of the last run's file
  for (size_t i = 0; i < runs; ++i) {
    char suffix[24];  // "%06zx" of a size_t: at most 16 digits and the NUL
    std::snprintf(suffix, sizeof suffix, "%06zx", i);
    const std::string id = "20261127T000000.000Z-" + std::string(suffix);
    const std::vector<RepetitionRow> rows =
        RunRows(id, int64_t(1.79e18) + int64_t(i) * 1'000'000'000'000);
    double t = Now();
    last_csv = id;
    const std::string path = ResultsPath(scratch, id);
    if (!WriteFileAtomic(path, CsvOf(rows)).ok()) return 1;
    csv_s += Now() - t;
    t = Now();
    if (auto added = (*db)->RecordRun(MetaOf(id), rows, "bench"); !added.ok()) {
      std::cerr << "db_ingest: " << added.status().message() << "\n";
      return 1;
    }
    db_s += Now() - t;
  }
  const double total = double(runs * per_run);
  std::printf("| %s | bulk (lines/s) | %.0f | %.0f | %.2f |\n", backend.c_str(), total / db_s,
              total / csv_s, csv_s / db_s);

  // Streaming: batches of 1,000 rows of a new run.
  const std::vector<RepetitionRow> rows = RunRows("20261127T999999.000Z-stream", 1);
  std::vector<double> batch_db, batch_csv;
  for (size_t from = 0; from + 1000 <= rows.size(); from += 1000) {
    const std::vector<RepetitionRow> batch(rows.begin() + from, rows.begin() + from + 1000);
    double t = Now();
    if (!(*db)->AddRows(batch).ok()) return 1;
    batch_db.push_back((Now() - t) * 1e3);
    t = Now();
    if (!WriteFileAtomic(scratch + "/stream.csv", CsvOf(batch)).ok()) return 1;
    batch_csv.push_back((Now() - t) * 1e3);
  }
  std::printf("| %s | streaming, a batch of 1,000 rows (ms) | %.2f | %.2f | %.2f |\n",
              backend.c_str(), Median(batch_db), Median(batch_csv),
              Median(batch_db) / Median(batch_csv));

  std::vector<double> best_ms, load_ms;
  for (int i = 0; i < 20; ++i) {
    double t = Now();
    auto best = (*db)->Best({.kernel = "matmul", .top = 5});
    if (!best.ok()) {
      std::cerr << "db_ingest: " << best.status().message() << "\n";
      return 1;
    }
    best_ms.push_back((Now() - t) * 1e3);
    t = Now();
    auto run = LoadRun(scratch, last_csv);
    if (!run.ok()) {
      std::cerr << "db_ingest: " << run.status().message() << "\n";
      return 1;
    }
    load_ms.push_back((Now() - t) * 1e3);
  }
  std::printf("| %s | khost best on %.0f lines (ms) | %.2f | %.2f | %.2f |\n", backend.c_str(),
              total, Median(best_ms), Median(load_ms), Median(best_ms) / Median(load_ms));
  return 0;
}

}  // namespace
}  // namespace ktune::host

int main(int argc, char** argv) {
  size_t lines = 1'000'000;
  std::string sqlite, pg;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--lines") lines = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--sqlite") sqlite = argv[i + 1];
    if (flag == "--pg") pg = argv[i + 1];
  }
  if (sqlite.empty() && pg.empty()) {
    std::cerr << "usage: db_ingest [--lines N] [--sqlite PATH] [--pg URL]\n";
    return 2;
  }
  const std::string scratch = "/tmp/db_ingest_" + std::to_string(getpid());
  if (!ktune::MakeDirs(scratch + "/results").ok()) return 1;
  std::printf("| backend | measure | database | anchor (CSV) | ratio |\n|---|---|---|---|---|\n");
  int rc = 0;
  if (!sqlite.empty()) rc |= ktune::host::Bench("sqlite", sqlite, lines, scratch);
  if (!pg.empty()) rc |= ktune::host::Bench("postgresql", pg, lines, scratch);
  ktune::RemoveTree(scratch);
  return rc;
}
