// VariantEvaluation: a variant's evaluation from its rows in a run.
#include "host/search/search.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

RepetitionRow TimedRow(uint32_t variant, double wall_ns,
                       std::optional<double> kernel_s = std::nullopt) {
  RepetitionRow r;
  r.run_id = "R";
  r.variant_index = variant;
  r.valid = true;
  r.values.push_back({kWallTime, wall_ns, "ns", 0, 0, ValueStatus::kOk});
  if (kernel_s) r.values.push_back({kKernelTime, *kernel_s, "s", 0, 0, ValueStatus::kOk});
  return r;
}

TEST_CASE("a variant's time is the median of its kernel-time when every repetition printed one") {
  const std::vector<RepetitionRow> rows = {TimedRow(0, 9e6, 3e-3), TimedRow(0, 9e6, 1e-3),
                                           TimedRow(0, 9e6, 2e-3), TimedRow(1, 5e6)};
  const Evaluation e = VariantEvaluation(rows, 0);
  REQUIRE(e.time_ns);
  CHECK(*e.time_ns == doctest::Approx(2e6));
  CHECK(e.run == "R");
  CHECK(e.status == "ok");
}

TEST_CASE("without kernel-time in every repetition the wall-time's median is the time") {
  const std::vector<RepetitionRow> rows = {TimedRow(0, 4e6, 1e-3), TimedRow(0, 6e6),
                                           TimedRow(0, 8e6)};
  REQUIRE(VariantEvaluation(rows, 0).time_ns);
  CHECK(*VariantEvaluation(rows, 0).time_ns == doctest::Approx(6e6));
}

TEST_CASE("sampling rows are not counted") {
  std::vector<RepetitionRow> rows = {TimedRow(0, 4e6), TimedRow(0, 100e6)};
  rows[1].sampling = true;
  CHECK(*VariantEvaluation(rows, 0).time_ns == doctest::Approx(4e6));
}

TEST_CASE("the first failing repetition makes the variant infeasible, with its reason") {
  std::vector<RepetitionRow> rows = {TimedRow(0, 1e6), TimedRow(0, 1e6), TimedRow(0, 1e6)};
  rows[1].valid = false;  // exit 0 but invalid: it printed NOT OK
  rows[2].valid = false;
  rows[2].outcome = {OutcomeKind::kSignaled, 11};
  Evaluation e = VariantEvaluation(rows, 0);
  CHECK_FALSE(e.time_ns);
  CHECK(e.status == "NOT OK");
  rows[1].outcome = {OutcomeKind::kExited, 3};
  CHECK(VariantEvaluation(rows, 0).status == "exit:3");
  rows[1].outcome = {OutcomeKind::kTimedOut, 0};
  CHECK(VariantEvaluation(rows, 0).status == "timeout");
}

TEST_CASE("a variant without rows was not measured; one without a time has none") {
  const std::vector<RepetitionRow> rows = {TimedRow(1, 1e6)};
  CHECK(VariantEvaluation(rows, 0).status == "not measured");
  CHECK_FALSE(VariantEvaluation(rows, 0).time_ns);
  std::vector<RepetitionRow> timeless = {TimedRow(0, 1e6)};
  timeless[0].values[0].status = ValueStatus::kNotSupported;
  CHECK(VariantEvaluation(timeless, 0).status == "no time");
}

TEST_CASE("across shapes: the geometric mean of the times, or the first failure and where") {
  const Evaluation a{{1, 2}, 2e6, "ok", "R"}, b{{1, 2}, 8e6, "ok", "R"};
  Evaluation across = AcrossShapesEvaluation({a, b}, {"M=8", "M=64"});
  REQUIRE(across.time_ns);
  CHECK(*across.time_ns == doctest::Approx(4e6));
  CHECK(across.config == Config{1, 2});
  CHECK(across.run == "R");
  const Evaluation crashed{{1, 2}, std::nullopt, "signal:SIGSEGV", "R"};
  across = AcrossShapesEvaluation({a, crashed, b}, {"M=8", "M=16", "M=64"});
  CHECK_FALSE(across.time_ns);
  CHECK(across.status == "signal:SIGSEGV at M=16");
  // One shape: as it is, without a shape in its status.
  CHECK(AcrossShapesEvaluation({crashed}, {"M=8"}).status == "signal:SIGSEGV");
  CHECK(AcrossShapesEvaluation({}, {}).status == "not measured");
}

}  // namespace
}  // namespace ktune::host
