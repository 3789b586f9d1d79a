// The search's warm start from the tuning database: khost best's answers mapped into the space,
// and the database asked for them (a real SQLite file).
#include "host/search/warm_start.h"

#include <doctest/doctest.h>

#include "tests/unit/host/db/db_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

BestAnswer Answer(const std::string& shape, const std::string& fallback,
                  const std::vector<std::string>& configs) {
  BestAnswer a;
  a.shape = ParseParams(shape).value();
  a.fallback = fallback;
  for (const std::string& c : configs) {
    BestEntry e;
    e.config = c;
    a.entries.push_back(e);
  }
  return a;
}

TEST_CASE("a warm start takes each shape's answers in turn, skipping what the space lacks") {
  const SearchSpace space = SearchSpace::Make({"A", "B"}, {{1, 2, 4}, {8, 16}},
                                              {{1, 8}, {1, 16}, {2, 8}, {2, 16}, {4, 8}})
                                .value();
  const std::vector<BestAnswer> answers = {
      Answer("M=64", "same board, nearest shape", {"B=16;A=2", "A=4;B=16", "A=1;B=8"}),
      Answer("M=8", "another board, same shape", {"A=2;B=16", "A=x;B=8", "A=4;B=8", "A=1"})};
  const WarmStart w = WarmStartOf(space, answers, {.count = 10});
  // Rank by rank: (2, 16) once; (4, 16) is infeasible here; "A=x" and "A=1" alone are not
  // configurations of the space.
  CHECK(w.configs == std::vector<std::vector<int64_t>>{{2, 16}, {1, 8}, {4, 8}});
  CHECK(w.here == 0);  // none measured at this shape on this board
  CHECK(w.about ==
        "3 configurations first: the tuning database's best at M=64 (same board, nearest "
        "shape), M=8 (another board, same shape)");
  CHECK(WarmStartOf(space, answers, {.count = 1}).configs ==
        std::vector<std::vector<int64_t>>{{2, 16}});
  const WarmStart none =
      WarmStartOf(space, {Answer("M=64", "same board and shape", {"A=3;B=8"})}, {.count = 5});
  CHECK(none.configs.empty());
  CHECK(none.about == "the tuning database's best configurations are none of this space's");
}

TEST_CASE("a warm start at the shape searched takes every configuration young enough to reuse") {
  const SearchSpace space =
      SearchSpace::Make({"A"}, {{1, 2, 3, 4, 5}}, {{1}, {2}, {3}, {4}, {5}}).value();
  BestAnswer here = Answer("M=8", "same board and shape", {"A=3", "A=1", "A=5", "A=2"});
  const int64_t measured_ns[4] = {50, 10, 60, 70};  // A=1's record is too old to reuse
  for (size_t i = 0; i < 4; ++i) here.entries[i].measured_ns = measured_ns[i];
  const BestAnswer other = Answer("M=16", "same board, nearest shape", {"A=4", "A=3"});
  WarmStart w =
      WarmStartOf(space, {here, other}, {.count = 1, .reusable = 10, .reusable_since_ns = 20});
  // Every young one of M=8, fastest first; then one more of the best, the answers in turn:
  // M=8's fastest is taken already, M=16's is A=4 (A=1, too old to reuse, would come next).
  CHECK(w.configs == std::vector<std::vector<int64_t>>{{3}, {5}, {2}, {4}});
  CHECK(w.here == 3);
  CHECK(w.about ==
        "4 configurations first: those measured at M=8 on this board within the reuse age, each "
        "reused unless its ELF, test data or method changed; then 1: the tuning database's best at "
        "M=16 (same board, nearest shape)");
  // Up to the budget.
  w = WarmStartOf(space, {here}, {.count = 0, .reusable = 2, .reusable_since_ns = 20});
  CHECK(w.configs == std::vector<std::vector<int64_t>>{{3}, {5}});
  // The best taken in turn, those of the shape searched first: M=16's A=4 was taken before M=8's
  // A=1, too old to reuse but measured here.
  w = WarmStartOf(space, {other, here}, {.count = 2, .reusable = 0});
  CHECK(w.configs == std::vector<std::vector<int64_t>>{{3}, {4}});
  CHECK(w.here == 1);
  // Another shape's records are not reused: only the best `count` of them.
  w = WarmStartOf(space, {other}, {.count = 1, .reusable = 10});
  CHECK(w.configs == std::vector<std::vector<int64_t>>{{4}});
  CHECK(w.about ==
        "1 configuration first: the tuning database's best at M=16 (same board, nearest shape)");
}

TEST_CASE("the warm start asks the database: the nearest shape's best, or why there is none") {
  test::UnitTempDir tmp;
  const DbChoice choice{(tmp / "t.db"), "--db"};
  const SearchSpace space =
      SearchSpace::Make({"BLOCK"}, {{1, 2, 3, 4}}, {{1}, {2}, {3}, {4}}).value();
  WarmStart w = FindWarmStart(choice, "k", "x86_64:test", {{{"M", "128"}}}, space, {.count = 2});
  CHECK(w.configs.empty());
  CHECK(w.about.starts_with("none: "));
  CHECK(FindWarmStart(std::nullopt, "k", "", {}, space, {.count = 2}).about ==
        "none: no tuning database (--db none)");

  auto db = TuningDb::Open(choice);
  REQUIRE(db.ok());
  // Measured at M=64: BLOCK=3 fastest, then 1, then 2.
  std::vector<RepetitionRow> rows;
  const double seconds[3] = {2e-3, 3e-3, 1e-3};
  for (uint32_t v = 0; v < 3; ++v) {
    for (uint32_t rep = 0; rep < 3; ++rep) rows.push_back(dbtest::Row("R1", v, rep, seconds[v]));
  }
  REQUIRE((*db)->RecordRun(dbtest::Meta("R1"), rows, "host").ok());
  w = FindWarmStart(choice, "k", "x86_64:test", {{{"M", "128"}}}, space, {.count = 2});
  CHECK(w.configs == std::vector<std::vector<int64_t>>{{3}, {1}});
  CHECK(w.about ==
        "2 configurations first: the tuning database's best at M=64 (same board, nearest shape)");
}

}  // namespace
}  // namespace ktune::host
