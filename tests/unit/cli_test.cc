#include <doctest/doctest.h>

#include "common/events.h"
#include "host/cli/command.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "agent/store/store.h"

#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("run options: defaults, conversions and refusals") {
  auto d = ParseRunArgs({"matmul"});
  REQUIRE(d.ok());
  CHECK(d->kernel == "matmul");
  CHECK(d->root == ".");
  CHECK(d->events == std::vector<std::string>{"default"});  // the core's default group
  CHECK(d->repetitions == 5);
  CHECK(d->warmup == 1);
  CHECK(d->timeout_ms == 60000);
  CHECK(d->cpu == -1);

  auto o = ParseRunArgs({"matmul", "--events", "cycles:u,page-faults", "--reps", "3", "--warmup",
                         "0", "--timeout", "0.5", "--cpu", "1", "--root", "/x"});
  REQUIRE(o.ok());
  CHECK(o->events == std::vector<std::string>{"cycles:u", "page-faults"});
  CHECK(o->repetitions == 3);
  CHECK(o->warmup == 0);
  CHECK(o->timeout_ms == 500);
  CHECK(o->cpu == 1);
  CHECK(o->root == "/x");

  CHECK(ParseRunArgs({}).status().message().find("missing <kernel>") != std::string::npos);
  // Names are the agent's to resolve; here only the list's form counts.
  CHECK(ParseRunArgs({"k", "--events", "cylces"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--events", "cycles,,x"}).ok());
  CHECK(ParseRunArgs({"k", "--cpu-model", "spacemit/x60"})->cpu_model == "spacemit/x60");
  CHECK_FALSE(ParseRunArgs({"k", "--events", "cycles,cycles"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--reps", "0"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--reps", "x"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--timeout", "-1"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--cpu", "-2"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--bogus"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "extra"}).ok());
}

TEST_CASE("run --resume measures the run as it was asked: measurement options are refused") {
  auto newest = ParseRunArgs({"k", "--resume"});
  REQUIRE(newest.ok());
  CHECK(newest->resume);
  CHECK(newest->run_id.empty());
  auto named = ParseRunArgs({"k", "--resume", "--run", "r1", "--agent", "h:1", "--root", "/x"});
  REQUIRE(named.ok());
  CHECK(named->resume);
  CHECK(named->run_id == "r1");
  CHECK(named->agent == "h:1");
  CHECK(named->root == "/x");
  CHECK_FALSE(ParseRunArgs({"k"})->resume);
  const std::vector<Args> changes = {
      {"--events", "cycles"}, {"--reps", "3"},      {"--warmup", "0"}, {"--timeout", "1"},
      {"--cpu", "0"},         {"--cpu-model", "x"}, {"--multiplex"},   {"--record", "cycles"},
      {"--period", "100"},    {"--freq", "10"},     {"--callchain"}};
  for (const Args& change : changes) {
    Args args = {"k", "--resume"};
    args.insert(args.end(), change.begin(), change.end());
    auto r = ParseRunArgs(args);
    CAPTURE(change[0]);
    CHECK(r.status().code() == ErrorCode::kInvalidArgument);
    CHECK(r.status().message().find(change[0] + " cannot change it") != std::string::npos);
  }
  auto alone = ParseRunArgs({"k", "--run", "r1"});
  CHECK(alone.status().code() == ErrorCode::kInvalidArgument);
  CHECK(alone.status().message() == "--run goes with --resume");
}

TEST_CASE("the run request carries every variant and the measurement settings") {
  auto opts = ParseRunArgs({"k", "--events", "task-clock", "--reps", "2", "--cpu", "0"});
  REQUIRE(opts.ok());
  KernelDir dir;
  dir.kernel = "k";
  dir.variants = {{"a.elf", "k/run/bin/a.elf", {"8x8x8x1"}, {{"BLOCK_SIZE_M", "4"}}, ""},
                  {"b.elf", "k/run/bin/b.elf", {}, {}, ""}};
  const wire::RunRequest req = MakeRunRequest(*opts, dir, "bundle", "run");
  CHECK(req.run_id() == "run");
  CHECK(req.bundle_id() == "bundle");
  REQUIRE(req.variants_size() == 2);
  CHECK(req.variants(0).elf_path() == "k/run/bin/a.elf");
  CHECK(req.variants(0).args(0) == "8x8x8x1");
  CHECK(req.variants(0).params(0).name() == "BLOCK_SIZE_M");
  CHECK(req.events_size() == 1);
  CHECK(req.repetitions() == 2);
  CHECK(req.timeout_ms() == 60000);
  CHECK(req.cpu() == 0);
}

TEST_CASE("report and push options") {
  auto r = ParseReportArgs({"k", "--format", "perf-stats", "--run", "r1", "-o", "out.csv"});
  REQUIRE(r.ok());
  CHECK(r->perf_stats);
  CHECK(r->run_id == "r1");
  CHECK(r->output == "out.csv");
  CHECK(ParseReportArgs({"k"})->format == TableFormat::kConsole);
  CHECK_FALSE(ParseReportArgs({"k"})->perf_stats);
  CHECK_FALSE(ParseReportArgs({"k", "--format", "xml"}).ok());
  CHECK_FALSE(ParseReportArgs({"../k"}).ok());
  CHECK(ParsePushArgs({"k", "--agent", "h:1"})->agent == "h:1");
  CHECK(ParseAgentArgs({"status"}).ok());
  CHECK_FALSE(ParseAgentArgs({"reboot"}).ok());
}

TEST_CASE("report --fetch, with the agent to fetch from; not with --compare") {
  auto f = ParseReportArgs({"k", "--fetch", "--run", "r1", "--agent", "h:1", "--token-file", "t"});
  REQUIRE(f.ok());
  CHECK(f->fetch);
  CHECK(f->run_id == "r1");
  CHECK(f->agent == "h:1");
  CHECK(f->token_file == "t");
  CHECK(ParseReportArgs({"k", "--fetch"})->fetch);
  CHECK_FALSE(ParseReportArgs({"k"})->fetch);
  auto both = ParseReportArgs({"k", "--compare", "r1,r2", "--fetch"});
  CHECK(both.status().code() == ErrorCode::kInvalidArgument);
  CHECK(both.status().message().find("--fetch") != std::string::npos);
}

TEST_CASE("report --compare, markdown; analyze and tune --apply-best options") {
  auto c = ParseReportArgs({"k", "--compare", "r1,r2", "--format", "markdown"});
  REQUIRE(c.ok());
  CHECK(c->compare == std::vector<std::string>{"r1", "r2"});
  CHECK(c->format == TableFormat::kMarkdown);
  CHECK(ParseReportArgs({"k", "--compare", "r1"}).status().message() ==
        "--compare takes two runs: RUN_A,RUN_B");
  CHECK_FALSE(ParseReportArgs({"k", "--compare", "r1,r2", "--run", "r3"}).ok());
  CHECK_FALSE(ParseReportArgs({"k", "--compare", "r1,r2", "--format", "perf-stats"}).ok());

  auto a = ParseAnalyzeArgs({"k", "--threshold", "0.5", "--heatmap", "M,N", "--format", "csv",
                             "--no-plots", "--run", "r1", "--out", "d"});
  REQUIRE(a.ok());
  CHECK(a->threshold == 0.5);
  CHECK(a->heat_x == "M");
  CHECK(a->heat_y == "N");
  CHECK(a->format == TableFormat::kCsv);
  CHECK_FALSE(a->plots);
  CHECK(a->run_id == "r1");
  CHECK(a->out_dir == "d");
  auto d = ParseAnalyzeArgs({"k"});
  REQUIRE(d.ok());
  CHECK(d->threshold == 0.7);
  CHECK(d->plots);
  CHECK(d->counters == 3);
  CHECK(ParseAnalyzeArgs({"k", "--threshold", "2"}).status().message() ==
        "--threshold must be between 0 and 1");
  CHECK(ParseAnalyzeArgs({"k", "--heatmap", "M,M"}).status().message() ==
        "--heatmap takes two different parameters: X,Y");
  CHECK_FALSE(ParseAnalyzeArgs({"k", "--format", "xml"}).ok());

  auto t = ParseTuneArgs({"matmul", "--apply-best", "--run", "r1"});
  REQUIRE(t.ok());
  CHECK(t->apply_best);
  CHECK(t->run_id == "r1");
  CHECK(ParseTuneArgs({"matmul", "--run", "r1"}).status().message() ==
        "--run goes with --apply-best");
}

TEST_CASE("events options") {
  auto list = ParseEventsArgs({"list", "--cpu-model", "spacemit/x60"});
  REQUIRE(list.ok());
  CHECK(list->action == "list");
  CHECK(list->cpu_model == "spacemit/x60");
  CHECK(ParseEventsArgs({"groups"})->cpu_model.empty());
  CHECK_FALSE(ParseEventsArgs({"show"}).ok());
  CHECK_FALSE(ParseEventsArgs({}).ok());
}

TEST_CASE("run ids sort by their start, to the millisecond, and are safe names") {
  const std::string a = NewRunId();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const std::string b = NewRunId();
  CHECK(a < b);
  CHECK(std::regex_match(a, std::regex(R"(\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{6})")));
  CHECK(ValidateRunId(a).ok());  // the agent's rule for run directories
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
  REQUIRE(WriteRunMeta(path, meta).ok());
  auto back = ReadRunMeta(path);
  REQUIRE(back.ok());
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
  REQUIRE(WriteFileAtomic(path, j.dump()).ok());
  auto old = ReadRunMeta(path);
  REQUIRE(old.ok());
  CHECK(old->run_id == "r1");
  CHECK(old->complete);
  std::filesystem::remove(path);
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

TEST_CASE("the agent address comes from --agent, then KTUNE_AGENT, then the config file") {
  const std::string config = R"({"agent": "cfg:3"})";
  CHECK(ChooseAgent("flag:1", "env:2", config, "c.json")->address->host == "flag");
  CHECK(ChooseAgent("", "env:2", config, "c.json")->address->host == "env");
  auto from_file = ChooseAgent("", "", config, "c.json");
  CHECK(from_file->address->port == 3);
  CHECK(from_file->source == "c.json");
  CHECK_FALSE(ChooseAgent("", "", "", "c.json")->address.has_value());
  CHECK_FALSE(ChooseAgent("", "", "{}", "c.json")->address.has_value());
  CHECK(ChooseAgent("", "", "{bad", "c.json").status().message().find("c.json") !=
        std::string::npos);
  CHECK(ChooseAgent("nope", "", "", "c.json").status().message().find("--agent") !=
        std::string::npos);
  CHECK_FALSE(ChooseAgent("", "", R"({"agent": 5})", "c.json").ok());
  // nlohmann throws out_of_range, not parse_error, for a number beyond a double's range.
  CHECK(ChooseAgent("", "", R"({"agent": 1e400})", "c.json")
            .status()
            .message()
            .find("c.json is not valid JSON") != std::string::npos);
}

TEST_CASE("the token file comes from --token-file, then KTUNE_TOKEN_FILE, then the config file") {
  const std::string config = R"({"agent": "h:3", "token_file": "/etc/ktune/token"})";
  CHECK(ChooseTokenFile("flag", "env", "", config, "c.json").value() == "flag");
  CHECK(ChooseTokenFile("", "env", "", config, "c.json").value() == "env");
  CHECK(ChooseTokenFile("", "", "", config, "c.json").value() == "/etc/ktune/token");
  CHECK(ChooseTokenFile("", "", "/k1.token", config, "c.json").value() == "/k1.token");
  CHECK(ChooseTokenFile("", "env", "/k1.token", config, "c.json").value() == "env");
  CHECK(ChooseTokenFile("", "", "", R"({"agent": "h:3"})", "c.json").value().empty());
  CHECK(ChooseTokenFile("", "", "", "", "c.json").value().empty());
  CHECK(ChooseTokenFile("", "", "", R"({"token_file": 1})", "c.json").status().message() ==
        "c.json: \"token_file\" must be a path");
  CHECK(ChooseTokenFile("", "", "", R"([1e400])", "c.json")
            .status()
            .message()
            .find("c.json is not valid JSON") != std::string::npos);
}

}  // namespace
}  // namespace ktune::host
