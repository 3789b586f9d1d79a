#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "common/events.h"
#include "common/fs.h"
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
  // Each variant's inputs, with its work when configs.json gave it.
  meta.inputs = {{{"64"}, "h0", {2e6, 12288.0}}, {{"64"}, "h1", {std::nullopt, 8.0}}, {{}, "h2"}};
  REQUIRE(WriteRunMeta(path, meta).ok());
  auto inputs = ReadRunMeta(path);
  REQUIRE(inputs.ok());
  REQUIRE(inputs->inputs.size() == 3);
  CHECK(inputs->inputs[0].args == std::vector<std::string>{"64"});
  CHECK(inputs->inputs[0].work.flops == 2e6);
  CHECK(inputs->inputs[0].work.bytes == 12288.0);
  CHECK_FALSE(inputs->inputs[1].work.flops);
  CHECK(inputs->inputs[1].work.bytes == 8.0);
  CHECK(inputs->inputs[2].work.empty());
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

// Found by the host_receive fuzz target: a sampling row sent in the counting pass of a repetition
// the file holds was filed into the counting row, whose file then read back as two rows.
TEST_CASE("a sampling row in a counting row's pass is another measurement: not written into it") {
  const test::UnitTempDir tmp("ktune-writer-sampling");
  const std::string path = tmp.path().string() + "/results/r1.csv";
  auto w = ResultsWriter::Open(path);
  REQUIRE(w.ok());
  CHECK(w->Append(Row(0, 0, 100)).value() == ResultsWriter::Stored::kNew);
  RepetitionRow sampled = Row(0, 0, 0);
  sampled.sampling = true;
  sampled.values = {{"instructions", 98765, "", 0, 0, ValueStatus::kOk}};
  CHECK(w->Append(sampled).value() == ResultsWriter::Stored::kConflicting);
  REQUIRE(w->Finish().ok());
  REQUIRE(w->rows().size() == 1);
  CHECK(w->rows()[0].values.size() == 1);
  auto file = ParseResultsCsv(ReadFile(path).value());
  REQUIRE(file.ok());
  CHECK(file->rows.size() == w->rows().size());
}

// Found by the host_receive fuzz target: a row of another ELF (hash) under a held row's key, with
// a value the held row lacked, had that value written into the held row's measurement.
TEST_CASE(
    "a row of another ELF, board or parameters under a held row's key is another measurement") {
  const test::UnitTempDir tmp("ktune-writer-elf");
  const std::string path = tmp.path().string() + "/results/r1.csv";
  auto w = ResultsWriter::Open(path);
  REQUIRE(w.ok());
  RepetitionRow held = Row(0, 0, 100);
  held.elf_hash = std::string(32, 'a');
  CHECK(w->Append(held).value() == ResultsWriter::Stored::kNew);
  const auto with_cycles = [&](auto change) {
    RepetitionRow other = held;
    other.values = {{"cycles", 5, "", 0, 0, ValueStatus::kOk}};
    change(other);
    return w->Append(other).value();
  };
  CHECK(with_cycles([](RepetitionRow& r) { r.elf_hash = std::string(32, 'b'); }) ==
        ResultsWriter::Stored::kConflicting);
  CHECK(with_cycles([](RepetitionRow& r) { r.board = "another board"; }) ==
        ResultsWriter::Stored::kConflicting);
  CHECK(with_cycles([](RepetitionRow& r) {
          r.params = {{"B", "8"}};
        }) == ResultsWriter::Stored::kConflicting);
  CHECK(with_cycles([](RepetitionRow& r) {
          r.shape = {{"M", "64"}};
        }) == ResultsWriter::Stored::kConflicting);
  // The same measurement, a value it lacked: completed.
  CHECK(with_cycles([](RepetitionRow&) {}) == ResultsWriter::Stored::kCompleted);
  REQUIRE(w->Finish().ok());
  REQUIRE(w->rows().size() == 1);
  CHECK(w->rows()[0].values.size() == 2);
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
    CHECK(w->Append(Row(1, 0, 100)).value() == ResultsWriter::Stored::kNew);
    CHECK(w->Append(Row(0, 0, 200)).value() == ResultsWriter::Stored::kNew);
    // That repetition is in the file, whole.
    CHECK(w->Append(Row(1, 0, 100)).value() == ResultsWriter::Stored::kHeld);
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
  CHECK(w->Append(Row(0, 0, 200)).value() == ResultsWriter::Stored::kHeld);
  CHECK(w->Append(Row(2, 0, 300)).value() == ResultsWriter::Stored::kNew);
  CHECK(w->Append(Row(0, 1, 400)).value() == ResultsWriter::Stored::kNew);
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

// A repetition of three values, started at `start_ns`.
RepetitionRow Row3(uint32_t variant, uint32_t rep, int64_t start_ns = 1000) {
  RepetitionRow r = Row(variant, rep, 100 + rep);
  r.timestamp_ns = start_ns;
  r.values.push_back({kTaskClock, 90, "ns", 0, 0, ValueStatus::kOk});
  r.values.push_back({"cycles", 0, "", 0, 0, ValueStatus::kNotSupported});
  return r;
}

// Found by the bad-input campaign (issue 33): a file cut inside a repetition kept its first values
// and counted it present, so the agent's replay never brought the rest.
TEST_CASE("a repetition the file holds in part is completed with the values it lacks") {
  const test::UnitTempDir tmp("ktune-writer-part");
  const std::string path = tmp / "r1.csv";
  const std::string head = std::string(kResultsHeader) + "\n";
  const std::string first = ToCsvLines(Row3(0, 0));
  // Cut at a line end inside the second repetition (its first value only), as head -n would.
  const std::string second = ToCsvLines(Row3(0, 1));
  REQUIRE(WriteFileAtomic(path, head + first + second.substr(0, second.find('\n') + 1)).ok());
  auto w = ResultsWriter::Open(path);
  REQUIRE(w.ok());
  REQUIRE(w->rows().size() == 2);
  CHECK(w->rows()[1].values.size() == 1);
  CHECK(w->Append(Row3(0, 0)).value() == ResultsWriter::Stored::kHeld);
  CHECK(w->Append(Row3(0, 1)).value() == ResultsWriter::Stored::kCompleted);
  CHECK(w->rows()[1].values.size() == 3);
  CHECK(w->Append(Row3(0, 1)).value() == ResultsWriter::Stored::kHeld);
  // Another measurement of a repetition the file holds whole (the same key, another start): the
  // file's is kept, and the repetition is there.
  CHECK(w->Append(Row3(0, 1, 2000)).value() == ResultsWriter::Stored::kHeld);
  // Another measurement of one it holds in part cannot complete it: nothing is written.
  RepetitionRow part = Row3(0, 2);
  part.values.resize(1);
  CHECK(w->Append(part).value() == ResultsWriter::Stored::kNew);
  CHECK(w->Append(Row3(0, 2, 2000)).value() == ResultsWriter::Stored::kConflicting);
  CHECK(w->rows()[2].values.size() == 1);
  REQUIRE(w->Finish().ok());
  // Read back: the completion's lines follow the file's end; merged, each value once.
  auto file = ParseResultsCsv(ReadFile(path).value());
  REQUIRE(file.ok());
  // The completion follows the part the file held (its end): the parser joins them already.
  CHECK(file->rows.size() == 3);
  const MergedRows merged = MergeRepetitions(file->rows);
  CHECK(merged.duplicate_lines == 0);
  REQUIRE(merged.rows.size() == 3);
  for (size_t i = 0; i < 2; ++i) CHECK(merged.rows[i].values.size() == 3);
  CHECK(merged.rows[1].Find("cycles")->status == ValueStatus::kNotSupported);
}

// Found by the bad-input campaign (issue 33): a row repeated counted as one more repetition.
TEST_CASE("duplicate lines are dropped, the first kept, counted with the first one's line") {
  const test::UnitTempDir tmp("ktune-duplicates");
  const std::string path = tmp / "r1.csv";
  const std::string rep0 = ToCsvLines(Row3(0, 0)), rep1 = ToCsvLines(Row3(0, 1));
  const std::string rep0_line2 = rep0.substr(rep0.find('\n') + 1);
  RepetitionRow changed = Row3(0, 1);
  changed.values[0].value = 1;  // the first value again, with another number
  const std::string again = ToCsvLines(changed).substr(0, ToCsvLines(changed).find('\n') + 1);
  RepetitionRow other = Row3(0, 0, 5000);  // another measurement of repetition 0
  // Lines: 1 header, 2-4 rep0, 5-7 rep1, 8-9 rep0's last two values again, 10 rep1's first
  // value changed, 11-13 another measurement of rep0.
  REQUIRE(WriteFileAtomic(path, std::string(kResultsHeader) + "\n" + rep0 + rep1 + rep0_line2 +
                                    again + ToCsvLines(other))
              .ok());
  LoadedRun run = LoadRun(tmp.path().string(), path).value();
  REQUIRE(run.rows.size() == 2);
  CHECK(run.duplicate_lines == 6);
  CHECK(run.first_duplicate_line == 8);
  CHECK(run.rows[1].values[0].value == 101);  // the first kept, not the changed one
  CHECK(run.rows[0].timestamp_ns == 1000);
  const std::vector<std::string> warnings = RunWarnings(run);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == path + ": ignored 6 duplicate lines, from line 8 (a repetition's value " +
                           "given again, or another measurement of a repetition; the first is " +
                           "kept)");
}

TEST_CASE("a run's warnings: not complete, a torn last line; none for a whole run") {
  LoadedRun run;
  run.path = "r/x.csv";
  CHECK(RunWarnings(run).empty());
  run.meta = RunMeta{};
  run.meta->run_id = "x";
  run.meta->complete = true;
  CHECK(RunWarnings(run).empty());
  run.meta->complete = false;
  run.torn_lines = 1;
  run.rows.resize(3);
  const std::vector<std::string> w = RunWarnings(run);
  REQUIRE(w.size() == 2);
  CHECK(w[0] ==
        "run x is not complete (3 repetitions; khost run --resume --run x measures the rest, "
        "khost report --fetch takes what the agent holds)");
  CHECK(w[1].starts_with("r/x.csv: ignored an unterminated last line"));
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

// Found by the run_meta fuzz target's 10-minute run (issue 39, UBSan: "-5.55556e+19 is outside
// the range of representable values of type 'unsigned long'"): a JSON float such as
// "cooldown_ms": -55555555555555555550 was cast to the field's integer type, which is undefined
// beyond its range; "-1" became the largest count.
TEST_CASE("numbers in run metadata must be integers that fit their fields") {
  RunMeta meta;
  meta.run_id = "r1";
  meta.plan = "probed";
  meta.shards = {{"s1", {0, 1}, "a", "done"}};
  meta.agents = {"a"};
  const std::string text = RunMetaJson(meta);
  REQUIRE(ParseRunMeta(text, "m.json").ok());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"cooldown_ms", "-55555555555555555550"},
      {"cooldown_ms", "-1"},
      {"cooldown_ms", "2.5"},
      {"seed", "1e300"},
      {"seed", "18446744073709551616"},
      {"max_temp_mc", "9223372036854775808"},
      {"shards", R"([{"id": "s1", "variants": [4294967296], "agent": "a", "state": "done"}])"},
  };
  for (const auto& [field, value] : bad) {
    nlohmann::json j = nlohmann::json::parse(text);
    j[field] = nlohmann::json::parse(value);
    auto back = ParseRunMeta(j.dump(), "m.json");
    CHECK_MESSAGE(!back.ok(), (field + ": " + value));
    if (!back.ok()) CHECK(back.status().message().starts_with("m.json: "));
  }
  nlohmann::json edges = nlohmann::json::parse(text);
  edges["seed"] = UINT64_MAX;
  edges["max_temp_mc"] = INT64_MIN;
  auto back = ParseRunMeta(edges.dump(), "m.json");
  REQUIRE(back.ok());
  CHECK(back->seed == UINT64_MAX);
  CHECK(back->max_temp_mc == INT64_MIN);
}

RepetitionRow ShardRow(const std::string& shard, uint32_t variant, uint32_t repetition) {
  RepetitionRow r;
  r.run_id = shard;
  r.variant_index = variant;
  r.repetition = repetition;
  return r;
}

size_t RowsIn(const std::vector<RepetitionRow>& rows, const std::string& shard, uint32_t variant) {
  return static_cast<size_t>(std::count_if(rows.begin(), rows.end(), [&](const RepetitionRow& r) {
    return r.run_id == shard && r.variant_index == variant;
  }));
}

TEST_CASE("a moved variant counts the rows of its last shard holding any; the others stay out") {
  RunMeta meta;
  meta.run_id = "r";
  // Shard r_0 (variants 0, 1) dropped out after all of 0 and 2 repetitions of 1: 1 moved to r_2,
  // which measured it whole; r_1 (variants 2, 3) moved 3 to r_3, which has no row yet.
  meta.shards = {{"r_0", {0, 1}, "a", "moved"},
                 {"r_1", {2, 3}, "b", "moved"},
                 {"r_2", {1}, "b", "done"},
                 {"r_3", {3}, "", "pending"}};
  std::vector<RepetitionRow> rows;
  for (uint32_t i = 0; i < 3; ++i) rows.push_back(ShardRow("r_0", 0, i));
  for (uint32_t i = 0; i < 2; ++i) rows.push_back(ShardRow("r_0", 1, i));
  for (uint32_t i = 0; i < 3; ++i) rows.push_back(ShardRow("r_1", 2, i));
  rows.push_back(ShardRow("r_1", 3, 0));
  for (uint32_t i = 0; i < 3; ++i) rows.push_back(ShardRow("r_2", 1, i));
  rows.push_back(ShardRow("old", 1, 0));  // reused from another run: never superseded

  std::vector<RepetitionRow> kept = rows;
  CHECK(DropSuperseded(meta, kept) == 2);
  CHECK(RowsIn(kept, "r_0", 1) == 0);  // superseded by r_2's whole measurement
  CHECK(RowsIn(kept, "r_2", 1) == 3);
  CHECK(RowsIn(kept, "r_0", 0) == 3);  // not moved
  CHECK(RowsIn(kept, "r_1", 3) == 1);  // r_3 holds none of it yet: the part is all there is
  CHECK(RowsIn(kept, "old", 1) == 1);
  CHECK(kept.front().run_id == "r_0");  // the order kept

  // The first shard's journal merged later, whole: the last shard's measurement still counts.
  for (uint32_t i = 2; i < 3; ++i) rows.push_back(ShardRow("r_0", 1, i));
  meta.shards[0].state = "merged";
  kept = rows;
  CHECK(DropSuperseded(meta, kept) == 3);
  CHECK(RowsIn(kept, "r_2", 1) == 3);

  // Not a sweep, or no variant moved: nothing dropped.
  RunMeta plain;
  kept = rows;
  CHECK(DropSuperseded(plain, kept) == 0);
  std::vector<RepetitionRow> none;
  CHECK(DropSuperseded(meta, none) == 0);
}

TEST_CASE("a sweep's run loaded: a moved variant's cut rows are not counted, and a warning says") {
  const test::UnitTempDir tmp("ktune-superseded");
  const std::string path = tmp / "r.csv";
  RunMeta meta;
  meta.run_id = "r";
  meta.complete = true;
  meta.shards = {{"r_0", {0}, "a", "moved"}, {"r_1", {0}, "b", "done"}};
  std::string text = std::string(kResultsHeader) + "\n";
  for (const auto& [shard, n] : {std::pair<std::string, uint32_t>{"r_0", 1}, {"r_1", 3}}) {
    for (uint32_t i = 0; i < n; ++i) {
      RepetitionRow r = Row3(0, i);
      r.run_id = shard;
      text += ToCsvLines(r);
    }
  }
  REQUIRE(WriteFileAtomic(path, text).ok());
  REQUIRE(WriteRunMeta(RunMetaPath(path), meta).ok());
  const LoadedRun run = LoadRun(tmp.path().string(), path).value();
  CHECK(run.rows.size() == 3);
  CHECK(run.superseded_rows == 1);
  for (const RepetitionRow& r : run.rows) CHECK(r.run_id == "r_1");
  const std::vector<std::string> w = RunWarnings(run);
  REQUIRE(w.size() == 1);
  CHECK(w[0] == path + ": did not count 1 repetition of variants cut short on an agent that " +
                    "dropped out and measured again whole on another (they stay in the file)");
}

}  // namespace
}  // namespace ktune::host
