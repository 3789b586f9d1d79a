// Adaptive repetitions (khost run --reps auto, common/racing.h) with a real agentd and real ELFs:
// a variant three times slower than the others is dropped after --min-reps rounds, two equal
// ones race on to the cap, and the run, its JSON and khost report say why each stopped.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "host/results/results_dir.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {

TEST_CASE("khost run --reps auto drops the clearly slower variant and says why each stopped") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  // spin.elf holds the CPU for argv[1] ms: 4, 4 and 12 ms.
  test::MakeKernelDir(root, "k",
                      {{"spin.elf", {{"B", 0}}, {"4"}},
                       {"spin.elf", {{"B", 1}}, {"4"}},
                       {"spin.elf", {{"B", 2}}, {"12"}}});
  test::AgentProcess agent(tmp.path() + "/store");
  auto r = test::RunKhost({"run", "k", "--root", root, "--agent", agent.address().ToString(),
                           "--warmup", "0", "--reps", "auto", "--max-reps", "9", "--cooldown", "1"},
                          tmp.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string results = test::OnlyResults(root + "/k/run");
  std::map<uint32_t, uint32_t> rows_of;
  for (const RepetitionRow& row : test::RowsOf(results)) ++rows_of[row.variant_index];
  // Racing: after the 4 rounds it must get, every one of the 12 ms variant's times is above
  // every one of the others'. The equal two, the best and the runner-up, get 6 rounds at least
  // (the verdict's paired test needs 6) and go on, at most to the cap.
  CHECK(rows_of[2] == 4);
  for (uint32_t v : {0u, 1u}) {
    CHECK(rows_of[v] >= 6);
    CHECK(rows_of[v] <= 9);
  }
  auto meta = ReadRunMeta(RunMetaPath(results));
  REQUIRE(meta.ok());
  REQUIRE(meta->adaptive.has_value());
  CHECK(meta->adaptive->min_reps == 4);
  CHECK(meta->adaptive->max_reps == 9);
  CHECK(meta->cooldown_ms == 1);
  CHECK(meta->complete);
  CHECK(r.out.find("--reps auto (4-9 rounds, target 2%):") != std::string::npos);
  CHECK(r.out.find(" dropped as slower after 4") != std::string::npos);

  auto report = test::RunKhost({"report", "k", "--root", root, "--format", "json"}, tmp.path());
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  const auto doc = nlohmann::json::parse(report.out);
  CHECK(doc["variants"][2]["stopped"] == "slower");
  CHECK(doc["variants"][2]["repetitions"] == 4);
  // The equal two: still overlapping each other at the cap, unless one settled first.
  for (int v : {0, 1}) {
    const std::string why = doc["variants"][v]["stopped"];
    CHECK((why == "cap" || why == "settled" || why == "slower"));
  }
  auto analyze = test::RunKhost({"analyze", "k", "--root", root}, tmp.path());
  REQUIRE_MESSAGE(analyze.exit_code == 0, analyze.err);
  CHECK(analyze.out.find(" dropped as slower after 4") != std::string::npos);
}

TEST_CASE("khost run --reps auto: bad input stops before anything runs") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "k", {{"ok.elf", {{"B", 0}}, {}}});
  test::AgentProcess agent(tmp.path() + "/store");
  auto r = test::RunKhost({"run", "k", "--root", root, "--agent", agent.address().ToString(),
                           "--reps", "auto", "--max-reps", "3"},
                          tmp.path());
  CHECK(r.exit_code != 0);
  CHECK(r.err ==
        "khost run: --max-reps '3': a whole number of rounds (at least --min-reps) from 4 to "
        "100000\n");
  CHECK_FALSE(std::filesystem::exists(root + "/k/run/results"));
}

}  // namespace
}  // namespace ktune::host
