#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "common/events.h"
#include "common/fs.h"
#include "host/cli/command.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "tests/unit/common/system_check_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("run ids sort by their start, to the millisecond, and are safe names") {
  const std::string a = NewRunId();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::string b = NewRunId();
  CHECK(a < b);
  CHECK(std::regex_match(a, std::regex(R"(\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{6})")));
  CHECK(ValidateRunId(a).ok());  // the agent's rule for run directories
}

TEST_CASE("a run's results file is <run dir>/results/<run_id>.csv") {
  CHECK(ResultsDir("r/k/run") == "r/k/run/results");
  CHECK(ResultsPath("r/k/run", "20261122T031500.123Z-3fa2c1") ==
        "r/k/run/results/20261122T031500.123Z-3fa2c1.csv");
  CHECK(RunMetaPath(ResultsPath("r/k/run", "x")) == "r/k/run/results/x.json");
  CHECK(RunRequestPath(ResultsPath("r/k/run", "x")) == "r/k/run/results/x.request.pb");
}

TEST_CASE("run metadata round-trips") {
  const std::string path = std::filesystem::temp_directory_path() / "ktune_meta_test.json";
  RunMeta meta{"r1",
               "matmul",
               "127.0.0.1:1",
               "riscv64",
               "spacemit/x60",
               {"l2", "cycles"},
               {"l2_access:u", "cycles"},
               {{"L2 miss ratio", "l2_miss:u / l2_access:u", "l2"}},
               {{"l2_access:u", "l2_miss:u"}, {"cycles"}},
               "probed"};
  meta.order = "interleaved";
  meta.seed = UINT64_MAX;  // a JSON number, exact
  REQUIRE(WriteRunMeta(path, meta).ok());
  auto back = ReadRunMeta(path);
  REQUIRE(back.ok());
  CHECK(back->order == "interleaved");
  CHECK(back->seed == UINT64_MAX);
  CHECK(back->core == "spacemit/x60");
  CHECK(back->requested == meta.requested);
  CHECK(back->metrics[0].formula == "l2_miss:u / l2_access:u");
  CHECK(back->passes == meta.passes);
  CHECK(back->plan == "probed");
  CHECK_FALSE(back->complete);
  CHECK(back->shards.empty());
  CHECK(RunMetaPath("/x/results/r1.csv") == "/x/results/r1.json");
  // A sweep's agents and shards come back as written.
  meta.agents = {"k1", "k2"};
  meta.shards = {
      {"r1_0", {0, 1}, "k1", "done"}, {"r1_1", {2}, "k2", "moved"}, {"r1_2", {2}, "", "pending"}};
  REQUIRE(WriteRunMeta(path, meta).ok());
  auto sweep = ReadRunMeta(path);
  REQUIRE(sweep.ok());
  CHECK(sweep->agents == meta.agents);
  REQUIRE(sweep->shards.size() == 3);
  CHECK(sweep->shards[1].id == "r1_1");
  CHECK(sweep->shards[1].variants == std::vector<uint32_t>{2});
  CHECK(sweep->shards[1].agent == "k2");
  CHECK(sweep->shards[1].state == "moved");
  CHECK(sweep->shards[2].agent.empty());
  REQUIRE(WriteFileAtomic(path, "{\"run_id\": 3}").ok());
  CHECK_FALSE(ReadRunMeta(path).ok());
  std::filesystem::remove(path);
}

TEST_CASE("run metadata says whether the run is complete; files from before say nothing") {
  const std::string path = std::filesystem::temp_directory_path() / "ktune_meta_complete.json";
  RunMeta meta;
  meta.run_id = "r1";
  meta.kernel = "matmul";
  for (bool complete : {true, false}) {
    meta.complete = complete;
    REQUIRE(WriteRunMeta(path, meta).ok());
    auto back = ReadRunMeta(path);
    REQUIRE(back.ok());
    CHECK(back->complete == complete);
  }
  // A file written before runs could be resumed has no "complete": its run was whole.
  auto j = nlohmann::json::parse(ReadFile(path).value());
  REQUIRE(j.at("complete") == false);
  j.erase("complete");
  j.erase("order");
  j.erase("seed");
  REQUIRE(WriteFileAtomic(path, j.dump()).ok());
  auto old = ReadRunMeta(path);
  REQUIRE(old.ok());
  CHECK(old->run_id == "r1");
  CHECK(old->complete);
  // Nor an order: its run was measured variant after variant.
  CHECK(old->order == "sequential");
  CHECK(old->seed == 0);
  std::filesystem::remove(path);
}

TEST_CASE("run metadata keeps the agent's system check; files from before have none") {
  test::UnitTempDir dir;
  const std::string path = dir / "r1.json";
  RunMeta meta;
  meta.run_id = "r1";
  REQUIRE(WriteRunMeta(path, meta).ok());
  CHECK_FALSE(ReadRunMeta(path)->system.has_value());
  CHECK_FALSE(nlohmann::json::parse(ReadFile(path).value()).contains("system"));
  meta.system = test::NoisyCheck();
  REQUIRE(WriteRunMeta(path, meta).ok());
  auto back = ReadRunMeta(path);
  REQUIRE(back.ok());
  REQUIRE(back->system.has_value());
  test::CheckSameSystem(*back->system, *meta.system);
  // What the agent could not read stays unknown.
  meta.system = SystemCheck{};
  REQUIRE(WriteRunMeta(path, meta).ok());
  back = ReadRunMeta(path);
  REQUIRE(back.ok());
  test::CheckSameSystem(*back->system, SystemCheck{});
}

RepetitionRow Row(uint32_t variant, uint32_t rep, double wall_ns) {
  RepetitionRow r;
  r.run_id = "r1";
  r.variant_index = variant;
  r.variant = "v" + std::to_string(variant) + ".elf";
  r.elf = "k/run/bin/" + r.variant;
  r.repetition = rep;
  r.valid = true;
  r.values = {{kWallTime, wall_ns, "ns", 0, 0, ValueStatus::kOk}};
  return r;
}

TEST_CASE("the results writer writes each repetition once and keeps every row in file order") {
  const test::UnitTempDir tmp("ktune-writer");
  const std::string dir = tmp.path().string();
  const std::string path = dir + "/results/r1.csv";  // Open makes the directory
  {
    auto w = ResultsWriter::Open(path);
    REQUIRE(w.ok());
    CHECK(w->path() == path);
    CHECK(w->rows().empty());
    CHECK(w->Append(Row(1, 0, 100)).value());
    CHECK(w->Append(Row(0, 0, 200)).value());
    CHECK_FALSE(w->Append(Row(1, 0, 999)).value());  // that repetition is in the file
    REQUIRE(w->Finish().ok());
    CHECK(w->rows().size() == 2);
  }
  // Reopened (a fetched or resumed run), with the row being written when khost died torn.
  const std::string whole = ReadFile(path).value();
  REQUIRE(WriteFileAtomic(path, whole + ToCsvLines(Row(2, 0, 300)).substr(0, 10)).ok());
  auto w = ResultsWriter::Open(path);
  REQUIRE(w.ok());
  CHECK(w->dropped_bytes() == 10);
  REQUIRE(w->rows().size() == 2);
  CHECK_FALSE(w->Append(Row(0, 0, 999)).value());
  CHECK(w->Append(Row(2, 0, 300)).value());
  CHECK(w->Append(Row(0, 1, 400)).value());
  REQUIRE(w->Finish().ok());
  std::vector<std::pair<uint32_t, double>> order;
  for (const RepetitionRow& r : w->rows()) order.emplace_back(r.variant_index, r.values[0].value);
  const std::vector<std::pair<uint32_t, double>> expected = {
      {1, 100}, {0, 200}, {2, 300}, {0, 400}};
  CHECK(order == expected);
  // The file holds the same rows, once each, in the same order.
  auto file = ParseResultsCsv(ReadFile(path).value());
  REQUIRE(file.ok());
  CHECK(file->torn_lines == 0);
  REQUIRE(file->rows.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(KeyOf(file->rows[i]) == KeyOf(w->rows()[i]));
    CHECK(file->rows[i].values[0].value == expected[i].second);
  }
}

// Found by tests/fuzz/host_receive: an agent's plan that was not UTF-8 made WriteRunMeta throw
// nlohmann's type_error out of khost run.
TEST_CASE("run metadata with text that is not UTF-8 is written, the bytes replaced") {
  const std::string path = std::filesystem::temp_directory_path() / "ktune_meta_utf8_test.json";
  RunMeta meta;
  meta.run_id = "r1";
  meta.plan = "probed \xff";
  meta.passes = {{"cycles\xc3"}};
  REQUIRE(WriteRunMeta(path, meta).ok());
  auto back = ReadRunMeta(path);
  REQUIRE(back.ok());
  CHECK(back->plan == "probed \xef\xbf\xbd");  // U+FFFD
  CHECK(back->passes == std::vector<std::vector<std::string>>{{"cycles\xef\xbf\xbd"}});
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ktune::host
