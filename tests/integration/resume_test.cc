// Never losing a result: khost killed mid-run, agentd killed mid-run and restarted, two hosts
// on one agent. Real khost and agentd processes; the runs are spin.elf variants long enough
// (a quarter of a second a repetition: a run of 3 s that a slow, sanitized khost cannot see
// end before it interrupts it) to be interrupted midway.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "common/fs.h"
#include "common/results.h"
#include "host/results/results_dir.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

constexpr size_t kVariants = 4, kReps = 3, kRows = kVariants * kReps;

struct Sweep {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  std::string store = tmp.path() + "/store";
  std::unique_ptr<test::AgentProcess> agent = std::make_unique<test::AgentProcess>(store);
  Sweep() {
    std::vector<test::TestVariant> v;
    for (size_t i = 0; i < kVariants; ++i) v.push_back({"spin.elf", {{"BLOCK", int(i)}}, {"250"}});
    test::MakeKernelDir(root, "k", v);
  }
  std::vector<std::string> RunArgs() const {
    return {"run",      "k",
            "--root",   root,
            "--reps",   std::to_string(kReps),
            "--warmup", "0",
            "--agent",  agent->address().ToString()};
  }
  std::string Results() const {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root + "/k/run/results", ec)) {
      if (e.path().extension() == ".csv") return e.path().string();
    }
    return "";
  }
  std::string RunId() const { return fs::path(Results()).stem().string(); }
  std::string Journal() const { return store + "/runs/" + RunId() + "/results.csv"; }
  test::CommandResult Khost(std::vector<std::string> args) const {
    args.push_back("--agent");
    args.push_back(agent->address().ToString());
    return test::RunKhost(args, tmp.path());
  }
};

using test::RowsOf;

// Every repetition of the sweep exactly once.
void CheckWhole(const std::string& path) {
  auto file = ParseResultsCsv(ReadFile(path).value());
  REQUIRE(file.ok());
  CHECK(file->torn_lines == 0);
  std::set<RowKey> keys;
  for (const RepetitionRow& row : file->rows) {
    CHECK(row.valid);
    CHECK_MESSAGE(keys.insert(KeyOf(row)).second, "a repetition twice in " << path);
  }
  CHECK(keys.size() == kRows);
}

TEST_CASE("khost killed mid-run: the run goes on; report --fetch and run --resume get every row") {
  Sweep s;
  auto khost = test::StartKhost(s.RunArgs(), s.tmp.path(), s.tmp.path() + "/first");
  REQUIRE(test::WaitFor([&] { return test::RowsIn(s.Results()) >= 2; }));
  khost->Kill(SIGKILL);
  khost->Wait();
  const size_t kept = test::RowsIn(s.Results());
  CHECK(kept < kRows);

  // A snapshot while the agent measures on: what is there, told incomplete.
  auto snapshot = s.Khost({"report", "k", "--root", s.root, "--fetch"});
  REQUIRE_MESSAGE(snapshot.exit_code == 0, snapshot.err);
  CHECK(test::RowsIn(s.Results()) >= kept);

  // --resume joins the run still measuring and ends with every row, each once.
  auto resumed = s.Khost({"run", "k", "--root", s.root, "--resume"});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(resumed.err.find("resumed run " + s.RunId()) != std::string::npos);
  CHECK(resumed.out.find("best:") != std::string::npos);
  CheckWhole(s.Results());
  CHECK(fs::exists(s.root + "/k/run/perf_stats.csv"));
  CHECK(ReadFile(s.root + "/k/run/results/" + s.RunId() + ".json")->find("\"complete\": true") !=
        std::string::npos);

  auto again = s.Khost({"run", "k", "--root", s.root, "--resume"});
  CHECK(again.exit_code != 0);
  CHECK(again.err.find("is complete; nothing to resume") != std::string::npos);
  auto report = s.Khost({"report", "k", "--root", s.root, "--fetch"});
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(report.err.find("0 new rows, 12 of 12 (complete)") != std::string::npos);
  CheckWhole(s.Results());
}

TEST_CASE("agentd killed mid-run and restarted: torn line dropped, resume measures only the rest") {
  Sweep s;
  auto khost = test::StartKhost(s.RunArgs(), s.tmp.path(), s.tmp.path() + "/first");
  REQUIRE(test::WaitFor([&] { return test::RowsIn(s.Journal()) >= 3; }));
  s.agent->Kill();
  auto lost = khost->Wait();
  CHECK(lost.exit_code != 0);
  CHECK(lost.err.find("rows saved in " + s.Results()) != std::string::npos);
  // Found by the bad-input campaign (issue 33): "lost the agent" said nothing of what to do.
  CHECK(lost.err.find("(khost run k --root " + s.root + " --resume --run " + s.RunId() +
                      " --agent " + s.agent->address().ToString() +
                      " fetches what the agent measured and measures the rest)\n") !=
        std::string::npos);
  // The agent died writing a row: its journal ends in a torn line, and so may khost's copy.
  const auto journal = ParseResultsCsv(ReadFile(s.Journal()).value());
  REQUIRE(journal.ok());
  const size_t measured = journal->rows.size();
  REQUIRE(measured < kRows);
  {
    auto fd = OpenFile(s.Journal(), O_WRONLY | O_APPEND);
    REQUIRE(fd.ok());
    REQUIRE(WriteAll(fd->get(), "1,1763900000000000000,9,torn", s.Journal()).ok());
    auto host = OpenFile(s.Results(), O_WRONLY | O_APPEND);
    REQUIRE(host.ok());
    REQUIRE(WriteAll(host->get(), "1,17639", s.Results()).ok());
  }

  s.agent = std::make_unique<test::AgentProcess>(s.store);
  auto resumed = s.Khost({"run", "k", "--root", s.root, "--resume"});
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(resumed.err.find("dropped an unterminated last line") != std::string::npos);
  CheckWhole(s.Results());
  // The agent measured only what its journal lacked: each repetition once there, too, and the
  // rows from before the kill untouched.
  CheckWhole(s.Journal());
  const auto after = ParseResultsCsv(ReadFile(s.Journal()).value());
  REQUIRE(after.ok());
  for (size_t i = 0; i < measured; ++i) {
    CHECK(after->rows[i].timestamp_ns == journal->rows[i].timestamp_ns);
  }
}

// Each repetition's value names, merged over the file's lines as khost reads them.
std::map<std::pair<std::string, RowKey>, std::set<std::string>> ValuesByRepetition(
    const std::string& path) {
  auto file = ParseResultsCsv(ReadFile(path).value());
  REQUIRE(file.ok());
  std::map<std::pair<std::string, RowKey>, std::set<std::string>> out;
  for (const RepetitionRow& row : file->rows) {
    for (const MeasuredValue& v : row.values) {
      const bool once = out[std::make_pair(row.run_id, KeyOf(row))].insert(v.name).second;
      CHECK_MESSAGE(once, "a value twice in " << path);
    }
  }
  return out;
}

// Found by the bad-input campaign (issue 33): a host file cut mid-repetition kept that
// repetition's first values, counted it present and never fetched the rest; the run said complete.
TEST_CASE("a host file cut mid-repetition is completed value by value from the agent's journal") {
  Sweep s;
  auto run = s.Khost(s.RunArgs());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const auto journal = ValuesByRepetition(s.Journal());
  REQUIRE(journal.size() == kRows);
  const std::string whole = ReadFile(s.Results()).value();
  // The rows' lines: header, then one per value; a repetition has several.
  const size_t lines = static_cast<size_t>(std::count(whole.begin(), whole.end(), '\n'));
  REQUIRE(lines > 2 * kRows);

  // Cut mid-line at half its size (a torn last line), then at a line end inside a repetition
  // (as `head -n` would): both times the fetch completes every repetition, value by value.
  size_t mid_repetition = 0;
  for (size_t n = 0, line = 0; n < whole.size(); ++n) {
    if (whole[n] == '\n' && ++line == lines / 2) mid_repetition = n + 1;
  }
  for (const size_t cut : {whole.size() / 2, mid_repetition}) {
    CAPTURE(cut);
    REQUIRE(WriteFileAtomic(s.Results(), whole.substr(0, cut)).ok());
    auto analyze = test::RunKhost({"analyze", "k", "--root", s.root, "--no-plots"}, s.tmp.path());
    if (whole[cut - 1] != '\n') {  // analyze says what report says of a torn line
      CHECK(analyze.err.find("ignored an unterminated last line") != std::string::npos);
    }
    auto fetch = s.Khost({"report", "k", "--root", s.root, "--fetch"});
    REQUIRE_MESSAGE(fetch.exit_code == 0, fetch.err);
    CHECK(fetch.err.find("12 of 12 (complete)") != std::string::npos);
    CHECK(ValuesByRepetition(s.Results()) == journal);
    CHECK(ReadFile(host::RunMetaPath(s.Results()))->find("\"complete\": true") !=
          std::string::npos);
    auto report = s.Khost({"report", "k", "--root", s.root});
    REQUIRE_MESSAGE(report.exit_code == 0, report.err);
    CHECK(report.err.empty());
  }
}

// Found by the bad-input campaign (issue 33): a repeated line counted as one more repetition.
TEST_CASE("duplicate lines in a results file are dropped, the first kept, and said") {
  Sweep s;
  auto run = s.Khost(s.RunArgs());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string whole = ReadFile(s.Results()).value();
  const size_t first_row = whole.find('\n') + 1;
  const std::string line = whole.substr(first_row, whole.find('\n', first_row) + 1 - first_row);
  REQUIRE(WriteFileAtomic(s.Results(), whole + line + line).ok());
  const std::vector<std::vector<std::string>> commands = {
      {"report", "k", "--root", s.root, "--format", "json"},
      {"analyze", "k", "--root", s.root, "--no-plots"}};
  for (const auto& command : commands) {
    auto r = test::RunKhost(command, s.tmp.path());
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.err.find("ignored 2 duplicate lines") != std::string::npos);
    if (command[0] == "report") {  // each variant still has its 3 repetitions, not one more
      CHECK(r.out.find("\"valid_repetitions\": 3") != std::string::npos);
      CHECK(r.out.find("\"valid_repetitions\": 4") == std::string::npos);
    }
  }
}

TEST_CASE("a second host's run is queued behind the first, told its position, never concurrent") {
  Sweep s;
  test::MakeKernelDir(s.root, "k2", {{"spin.elf", {{"BLOCK", 0}}, {"20"}}});
  auto first = test::StartKhost(s.RunArgs(), s.tmp.path(), s.tmp.path() + "/first");
  REQUIRE(test::WaitFor([&] { return test::RowsIn(s.Results()) >= 1; }));
  auto second = s.Khost({"run", "k2", "--root", s.root, "--reps", "2", "--warmup", "0"});
  REQUIRE_MESSAGE(second.exit_code == 0, second.err);
  CHECK(second.err.find("queued, 1 ahead of it") != std::string::npos);
  auto done = first->Wait();
  REQUIRE_MESSAGE(done.exit_code == 0, done.err);
  // Queued, k2 started after k's last repetition began.
  int64_t last_first = 0;
  for (const auto& row : RowsOf(s.Results())) {
    last_first = std::max(last_first, row.timestamp_ns);
  }
  std::string k2;
  for (const auto& e : fs::directory_iterator(s.root + "/k2/run/results")) {
    if (e.path().extension() == ".csv") k2 = e.path().string();
  }
  const auto rows2 = RowsOf(k2);
  REQUIRE(rows2.size() == 2);
  for (const auto& row : rows2) CHECK(row.timestamp_ns > last_first);
  CheckWhole(s.Results());
}

}  // namespace
}  // namespace ktune
