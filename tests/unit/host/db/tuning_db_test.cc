#include "host/db/tuning_db.h"

#include <doctest/doctest.h>

#include <cmath>

#include "common/fs.h"
#include "host/db/db_import.h"
#include "host/db/schema.h"
#include "host/results/results_dir.h"
#include "tests/unit/host/db/db_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using dbtest::Meta;
using dbtest::Row;

TEST_CASE("the database is --db, else KTUNE_DB, else the config file's db, else the default") {
  auto c = ChooseDb("a.db", "b.db", R"({"db": "c.db"})", "cfg", "d.db");
  REQUIRE(c.ok());
  CHECK(c->url == "a.db");
  CHECK(c->source == "--db");
  CHECK(ChooseDb("", "b.db", R"({"db": "c.db"})", "cfg", "d.db")->source == "KTUNE_DB");
  CHECK(ChooseDb("", "", R"({"db": "postgresql://u@h/x"})", "cfg", "d.db")->url ==
        "postgresql://u@h/x");
  CHECK(ChooseDb("", "", R"({"agent": "x"})", "cfg", "d.db")->url == "d.db");
  CHECK(ChooseDb("", "", "", "cfg", "d.db")->source == "default");
  const auto bad = ChooseDb("", "", R"({"db": 3})", "cfg", "d.db");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        "cfg: \"db\" must be an SQLite file's path or a postgresql:// URL");
  CHECK(IsPostgresUrl("postgres://h/db"));
  CHECK_FALSE(IsPostgresUrl("/tmp/x.db"));
}

TEST_CASE("a variant's result: the median kernel-time with its interval, or why there is none") {
  std::vector<RepetitionRow> rows;
  for (uint32_t i = 0; i < 7; ++i) rows.push_back(Row("r", 0, i, (i + 1) * 1e-3));
  VariantResult v = VariantResultOf(rows, 0);
  CHECK(v.status == "ok");
  CHECK(v.metric == "kernel-time");
  CHECK(v.n == 7);
  CHECK(*v.median_ns == doctest::Approx(4e6));
  // Seven values: the 95% interval of the median is [x(1), x(7)].
  CHECK(*v.ci_low_ns == doctest::Approx(1e6));
  CHECK(*v.ci_high_ns == doctest::Approx(7e6));
  CHECK(v.measured_ns == 1'000'000'006);
  // Five values are too few for a 95% interval.
  rows.resize(5);
  CHECK_FALSE(VariantResultOf(rows, 0).ci_low_ns);
  // One repetition without kernel-time: the wall-time decides.
  rows[2].values.erase(rows[2].values.begin());
  CHECK(VariantResultOf(rows, 0).metric == "wall-time");
  CHECK(*VariantResultOf(rows, 0).median_ns == doctest::Approx(6e6));
  rows[3].valid = false;
  rows[3].outcome = {OutcomeKind::kSignaled, 11};
  CHECK(VariantResultOf(rows, 0).status == "signal:SIGSEGV");
  CHECK(VariantResultOf(rows, 1).status == "not measured");
  rows[3].outcome = {};
  CHECK(VariantResultOf(rows, 0).status == "NOT OK");
}

TEST_CASE("the reuse key changes with every input that changes the numbers") {
  const std::string key = ReuseKey("e", {"64"}, "t", {{"M", "64"}}, "b", "m");
  CHECK(key.size() == 64);
  CHECK(key == ReuseKey("e", {"64"}, "t", {{"M", "64"}}, "b", "m"));
  CHECK(key != ReuseKey("f", {"64"}, "t", {{"M", "64"}}, "b", "m"));
  CHECK(key != ReuseKey("e", {"65"}, "t", {{"M", "64"}}, "b", "m"));
  CHECK(key != ReuseKey("e", {"64"}, "u", {{"M", "64"}}, "b", "m"));
  CHECK(key != ReuseKey("e", {"64"}, "t", {{"M", "65"}}, "b", "m"));
  CHECK(key != ReuseKey("e", {"64"}, "t", {{"M", "64"}}, "c", "m"));
  CHECK(key != ReuseKey("e", {"64"}, "t", {{"M", "64"}}, "b", "n"));
  // An input not known (a run from before they were kept): no key, never reused.
  CHECK(ReuseKey("e", {"64"}, "", {{"M", "64"}}, "b", "m").empty());
  CHECK(ReuseKey("e", {"64"}, "t", {{"M", "64"}}, "b", "").empty());
}

TEST_CASE("a file that is not a database is an error, and left as it is") {
  test::UnitTempDir tmp;
  const std::string path = tmp / "t.db";
  const std::string junk(8192, 'x');
  REQUIRE(WriteFileAtomic(path, junk).ok());
  auto db = TuningDb::Open({path, "test"});
  REQUIRE_FALSE(db.ok());
  CHECK(db.status().message().find("is not a database") != std::string::npos);
  CHECK(*ReadFile(path) == junk);
  CHECK_FALSE(TuningDb::Open({tmp / "missing.db", "test"}, false).ok());
}

TEST_CASE("a run is recorded once however often it is recorded, and answers best") {
  test::UnitTempDir tmp;
  auto db = TuningDb::Open({"sqlite:" + (tmp / "t.db"), "test"});
  REQUIRE(db.ok());
  std::vector<RepetitionRow> rows;
  for (uint32_t i = 0; i < 6; ++i) {
    rows.push_back(Row("20261127T000000.000Z-aaaaaa", 0, i, 2e-3));
    rows.push_back(Row("20261127T000000.000Z-aaaaaa", 1, i, 1e-3));
  }
  CHECK(*(*db)->AddRows({rows[0], rows[1]}) == 4);  // as they arrive
  const RunMeta meta = Meta("20261127T000000.000Z-aaaaaa");
  CHECK(*(*db)->RecordRun(meta, rows, "host") == 20);  // the rest
  CHECK(*(*db)->RecordRun(meta, rows, "host") == 0);
  auto c = (*db)->Contents();
  REQUIRE(c.ok());
  CHECK(c->runs == 1);
  CHECK(c->measurements == 24);
  CHECK(c->results == 2);
  REQUIRE(c->kernels.size() == 1);
  CHECK(c->kernels[0].configs == 2);

  auto best = (*db)->Best({.kernel = "k"});
  REQUIRE(best.ok());
  CHECK(best->fallback == "same board and shape");
  REQUIRE(best->entries.size() == 1);
  CHECK(best->entries[0].config == "BLOCK=2");
  CHECK(best->entries[0].median_ns == doctest::Approx(1e6));
  CHECK(best->entries[0].n == 6);
  CHECK(best->entries[0].ci_low_ns.has_value());

  // A later run whose every variant was reused (its rows are the first run's) leaves the answer
  // on the board of the runs that measured.
  RunMeta reused = Meta("20261127T000001.000Z-bbbbbb");
  reused.reused = {{0, "20261127T000000.000Z-aaaaaa", 1}, {1, "20261127T000000.000Z-aaaaaa", 1}};
  REQUIRE((*db)->RecordRun(reused, rows, "host").ok());
  CHECK((*db)->Best({.kernel = "k"})->fallback == "same board and shape");

  auto nearest = (*db)->Best({.kernel = "k", .shape = {{"M", "256"}}, .shape_given = true});
  REQUIRE(nearest.ok());
  CHECK(nearest->fallback == "same board, nearest shape");
  CHECK(nearest->shape == Params{{"M", "64"}});
  auto other = (*db)->Best({.kernel = "k", .board = "elsewhere", .top = 5});
  REQUIRE(other.ok());
  CHECK(other->fallback == "another board, same shape");
  CHECK(other->entries.size() == 2);
  CHECK((*db)->Best({.kernel = "nope"}).status().code() == ErrorCode::kNotFound);
}

TEST_CASE("a sweep's variant moved off a board that dropped out: its cut rows are kept, not used") {
  test::UnitTempDir tmp;
  auto db = TuningDb::Open({"sqlite:" + (tmp / "t.db"), "test"});
  REQUIRE(db.ok());
  const std::string run = "20261127T000000.000Z-cccccc";
  RunMeta meta = Meta(run);
  meta.shards = {{run + "_0", {0, 1}, "a", "moved"}, {run + "_1", {1}, "b", "done"}};
  std::vector<RepetitionRow> rows;
  for (uint32_t i = 0; i < 3; ++i) rows.push_back(Row(run + "_0", 0, i, 1e-3));
  rows.push_back(Row(run + "_0", 1, 0, 9e-3));  // cut short, slow: the board was failing
  for (uint32_t i = 0; i < 3; ++i) rows.push_back(Row(run + "_1", 1, i, 2e-3));
  REQUIRE((*db)->AddRows(rows).ok());  // every row as it arrived
  REQUIRE((*db)->RecordRun(meta, rows, "host").ok());
  CHECK((*db)->Contents()->measurements == 14);  // nothing measured is lost
  const auto moved = (*db)->RowsOf(run, 1);
  REQUIRE(moved.ok());
  REQUIRE(moved->size() == 3);
  for (const RepetitionRow& r : *moved) CHECK(r.run_id == run + "_1");
  CHECK((*db)->RowsOf(run, 0)->size() == 3);
  auto best = (*db)->Best({.kernel = "k", .top = 2});
  REQUIRE(best.ok());
  REQUIRE(best->entries.size() == 2);
  CHECK(best->entries[1].config == "BLOCK=2");
  CHECK(best->entries[1].n == 3);
  CHECK(best->entries[1].median_ns == doctest::Approx(2e6));
}

TEST_CASE("of equally near shapes, the one with the most configurations measured answers") {
  test::UnitTempDir tmp;
  auto db = TuningDb::Open({(tmp / "t.db"), "--db"});
  REQUIRE(db.ok());
  auto record = [&](const std::string& run_id, const std::string& m, uint32_t variants) {
    std::vector<RepetitionRow> rows;
    for (uint32_t v = 0; v < variants; ++v) {
      for (uint32_t rep = 0; rep < 3; ++rep) {
        RepetitionRow r = Row(run_id, v, rep, 1e-3 * (v + 1));
        r.shape = {{"M", m}};
        rows.push_back(r);
      }
    }
    RunMeta meta = Meta(run_id);
    meta.inputs.assign(variants, {{m}, "td"});
    return (*db)->RecordRun(meta, rows, "host");
  };
  // M=128 and M=32 are both one octave from M=64; M=32 holds two configurations, M=128 one.
  REQUIRE(record("20261127T000000.000Z-aaaaaa", "128", 1).ok());
  REQUIRE(record("20261127T000001.000Z-bbbbbb", "32", 2).ok());
  auto a = (*db)->Best({.kernel = "k", .shape = {{"M", "64"}}, .shape_given = true, .top = 5});
  REQUIRE(a.ok());
  CHECK(a->fallback == "same board, nearest shape");
  CHECK(a->shape == Params{{"M", "32"}});
  CHECK(a->entries.size() == 2);
  // Three at M=128 now.
  REQUIRE(record("20261127T000002.000Z-cccccc", "128", 3).ok());
  a = (*db)->Best({.kernel = "k", .shape = {{"M", "64"}}, .shape_given = true, .top = 5});
  REQUIRE(a.ok());
  CHECK(a->shape == Params{{"M", "128"}});
  CHECK(a->entries.size() == 3);
}

TEST_CASE("a board's ceilings are kept per thread count, each measuring replacing the last") {
  test::UnitTempDir tmp;
  auto db = TuningDb::Open({"sqlite:" + (tmp / "t.db"), "test"});
  REQUIRE(db.ok());
  const std::vector<CeilingRow> one = {{"compute", "fp32 scalar", "fp32", 0, 10, "f1", 1},
                                       {"memory", "L1", "", 32768, 60, "b1", 1},
                                       {"memory", "DRAM", "", 0, 9, "b1", 1}};
  REQUIRE((*db)->RecordCeilings("k1", 1, one).ok());
  REQUIRE(
      (*db)->RecordCeilings("k1", 8, {{"compute", "fp32 scalar", "fp32", 0, 80, "f2", 2}}).ok());
  CHECK(*(*db)->CeilingThreads("k1") == std::vector<int64_t>{1, 8});
  CHECK((*db)->CeilingThreads("other")->empty());
  auto rows = (*db)->CeilingsOf("k1", 1);
  REQUIRE(rows->size() == 3);
  CHECK((*rows)[0].name == "fp32 scalar");  // compute, then the levels smallest first, DRAM last
  CHECK((*rows)[1].name == "L1");
  CHECK((*rows)[2].name == "DRAM");
  CHECK((*rows)[2].run_id == "b1");
  // Measured again: the new rows replace the old ones of that thread count only.
  REQUIRE((*db)->RecordCeilings("k1", 1, {{"compute", "fp64 scalar", "fp64", 0, 5, "f3", 3}}).ok());
  rows = (*db)->CeilingsOf("k1", 1);
  REQUIRE(rows->size() == 1);
  CHECK((*rows)[0].run_id == "f3");
  CHECK((*db)->CeilingsOf("k1", 8)->at(0).value == 80);
}

}  // namespace
}  // namespace ktune::host
