// The tuning database (host/db/, docs/DATABASE.md), each case on both backends: an SQLite file,
// and a database on a real PostgreSQL server the test starts itself (initdb, pg_ctl on a Unix
// socket in a temporary directory, as nobody). Real agentd and khost, real ELFs.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/fs.h"
#include "host/db/sql.h"
#include "host/results/results_dir.h"
#include "tests/integration/harness.h"
#include "tests/integration/postgres_server.h"

namespace ktune::host {
namespace {

// The process's PostgreSQL server, started at first use.
test::PostgresServer& Postgres() {
  static std::unique_ptr<test::PostgresServer> server = [] {
    std::string why;
    auto s = test::PostgresServer::Start(&why);
    REQUIRE_MESSAGE(s, why);
    return s;
  }();
  return *server;
}

struct Backend {
  std::string name, url;
};
// A new, empty database of each backend.
std::vector<Backend> Backends(const std::string& dir) {
  const std::string pg = Postgres().NewDatabase();
  REQUIRE(!pg.empty());
  return {{"sqlite", dir + "/tuning.db"}, {"postgresql", pg}};
}

// The values (the long CSV's lines) of a results file.
size_t ValuesIn(const std::string& results_path) {
  size_t n = 0;
  for (const RepetitionRow& r : test::RowsOf(results_path)) n += r.values.size();
  return n;
}

nlohmann::json Json(const test::CommandResult& r) {
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

struct Bench {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  std::unique_ptr<test::AgentProcess> agent =
      std::make_unique<test::AgentProcess>(tmp.path() + "/store");

  void Kernel(const std::string& name, size_t variants) {
    std::vector<test::TestVariant> v;
    for (size_t i = 0; i < variants; ++i) v.push_back({"ok.elf", {{"B", int(i)}}, {}});
    test::MakeKernelDir(root, name, v);
  }
  std::vector<std::string> RunArgs(const std::string& kernel, const std::string& db) {
    return {"run",    kernel, "--root",   root, "--agent", agent->address().ToString(),
            "--reps", "3",    "--warmup", "0",  "--db",    db};
  }
};

TEST_CASE("khost run records every value once; db shows it, best answers, import adds nothing") {
  Bench b;
  b.Kernel("k", 3);
  for (const Backend& db : Backends(b.tmp.path())) {
    CAPTURE(db.name);
    auto run = test::RunKhost(b.RunArgs("k", db.url), b.tmp.path());
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    const std::string results = test::OnlyResults(b.root + "/k/run");
    const size_t values = ValuesIn(results);
    CHECK(values > 0);

    const auto shown =
        Json(test::RunKhost({"db", "--db", db.url, "--format", "json"}, b.tmp.path()));
    CHECK(shown["backend"] == db.name);
    CHECK(shown["runs"] == 1);
    CHECK(shown["measurements"] == values);
    CHECK(shown["results"] == 3);
    REQUIRE(shown["kernels"].size() == 1);
    CHECK(shown["kernels"][0]["configs"] == 3);

    const auto best = Json(test::RunKhost(
        {"best", "k", "--db", db.url, "--format", "json", "--top", "3"}, b.tmp.path()));
    CHECK(best["fallback"] == "same board and shape");
    REQUIRE(best["entries"].size() == 3);
    CHECK(best["entries"][0]["n"] == 3);
    CHECK(best["entries"][0]["run_id"] == std::filesystem::path(results).stem().string());
    CHECK(best["entries"][0]["median_ns"].get<double>() <=
          best["entries"][1]["median_ns"].get<double>());

    auto again = test::RunKhost({"db", "import", b.root, "--db", db.url}, b.tmp.path());
    REQUIRE_MESSAGE(again.exit_code == 0, again.err);
    CHECK(again.out.find("1 runs of 1 kernels") != std::string::npos);
    CHECK(again.out.find(": 0 values new, " + std::to_string(values) + " held already") !=
          std::string::npos);
    std::filesystem::remove_all(b.root + "/k/run/results");
  }
}

TEST_CASE("four khost runs at once on one database store every value once") {
  Bench b;
  std::vector<std::unique_ptr<test::AgentProcess>> agents;
  for (int k = 0; k < 4; ++k) {
    b.Kernel("k" + std::to_string(k), 2);
    agents.push_back(
        std::make_unique<test::AgentProcess>(b.tmp.path() + "/store" + std::to_string(k)));
  }
  for (const Backend& db : Backends(b.tmp.path())) {
    CAPTURE(db.name);
    std::vector<std::unique_ptr<test::Program>> runs;
    for (int k = 0; k < 4; ++k) {
      std::vector<std::string> args = b.RunArgs("k" + std::to_string(k), db.url);
      args[5] = agents[k]->address().ToString();
      // Their ELFs are alike: a run ending first would otherwise lend its rows to one starting.
      args.push_back("--fresh");
      runs.push_back(test::StartKhost(args, b.tmp.path(),
                                      b.tmp.path() + "/out-" + db.name + std::to_string(k)));
    }
    size_t values = 0;
    for (int k = 0; k < 4; ++k) {
      auto r = runs[k]->Wait();
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      CHECK(r.err.find("tuning database") == std::string::npos);
      values += ValuesIn(test::OnlyResults(b.root + "/k" + std::to_string(k) + "/run"));
    }
    const auto shown =
        Json(test::RunKhost({"db", "--db", db.url, "--format", "json"}, b.tmp.path()));
    CHECK(shown["runs"] == 4);
    CHECK(shown["measurements"] == values);
    CHECK(shown["results"] == 8);
    for (int k = 0; k < 4; ++k) {
      std::filesystem::remove_all(b.root + "/k" + std::to_string(k) + "/run/results");
    }
  }
}

// Turning a new SQLite file to WAL upgrades the pragma's read lock, for which SQLite calls no busy
// handler: the four runs above were now and then told "database is locked" (CI, once; a C program
// forking four openers of a new file 300 times: 19 of 1,200 refused). Processes, as khost runs
// are: threads of one process take SQLite's locks in turn and never race so.
TEST_CASE("processes opening a new SQLite database at once all open it") {
  test::TempDir tmp;
  int refused = 0;
  for (int round = 0; round < 100; ++round) {
    const std::string path = tmp.path() + "/race" + std::to_string(round) + ".db";
    std::vector<pid_t> openers;
    for (int k = 0; k < 4; ++k) {
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) ::_exit(OpenSqlite(path, true).ok() ? 0 : 1);
      openers.push_back(pid);
    }
    for (const pid_t pid : openers) {
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++refused;
    }
  }
  CHECK(refused == 0);
}

// The run ids of a results file's rows, by variant index.
std::map<uint32_t, std::set<std::string>> RunsOfRows(const std::string& results_path) {
  std::map<uint32_t, std::set<std::string>> out;
  for (const RepetitionRow& r : test::RowsOf(results_path)) out[r.variant_index].insert(r.run_id);
  return out;
}

// The newest results file of `kernel_run_dir`.
std::string Newest(const std::string& kernel_run_dir) {
  return IdFilesIn(kernel_run_dir + "/results").back();
}

TEST_CASE("a variant measured already is reused, a changed one measured, --fresh measures all") {
  Bench b;
  b.Kernel("k", 3);
  for (const Backend& db : Backends(b.tmp.path())) {
    CAPTURE(db.name);
    auto first = test::RunKhost(b.RunArgs("k", db.url), b.tmp.path());
    REQUIRE_MESSAGE(first.exit_code == 0, first.err);
    const std::string first_id = std::filesystem::path(Newest(b.root + "/k/run")).stem();

    auto again = test::RunKhost(b.RunArgs("k", db.url), b.tmp.path());
    REQUIRE_MESSAGE(again.exit_code == 0, again.err);
    CHECK(again.err.find("khost run: 3 of 3 variants reused from the tuning database") !=
          std::string::npos);
    const std::string second = Newest(b.root + "/k/run");
    CHECK(test::RowsIn(second) == 9);
    for (const auto& [variant, runs] : RunsOfRows(second)) {
      CHECK(runs == std::set<std::string>{first_id});
    }
    auto report = test::RunKhost({"report", "k", "--root", b.root}, b.tmp.path());
    REQUIRE_MESSAGE(report.exit_code == 0, report.err);
    CHECK(report.err.find("3 variants were reused from the tuning database, not measured in run " +
                          std::filesystem::path(second).stem().string()) != std::string::npos);
    CHECK(report.out.find("run " + std::filesystem::path(second).stem().string() + ":") !=
          std::string::npos);

    // Variant 1's ELF changes (bytes appended: it runs as before): it alone is measured.
    const std::string elf = b.root + "/k/run/bin/1_ok.elf";
    REQUIRE(WriteFileAtomic(elf, *ReadFile(elf) + std::string(64, '\0')).ok());
    std::filesystem::permissions(elf, std::filesystem::perms::owner_all);
    auto changed = test::RunKhost(b.RunArgs("k", db.url), b.tmp.path());
    REQUIRE_MESSAGE(changed.exit_code == 0, changed.err);
    CHECK(changed.err.find("2 of 3 variants reused") != std::string::npos);
    const std::string third = Newest(b.root + "/k/run");
    const auto runs = RunsOfRows(third);
    CHECK(runs.at(0) == std::set<std::string>{first_id});
    CHECK(runs.at(1) == std::set<std::string>{std::filesystem::path(third).stem().string()});
    CHECK(runs.at(2) == std::set<std::string>{first_id});
    CHECK(test::RowsIn(third) == 9);
    // The agent measured the changed variant alone, as its variant 0: a fetch maps it back.
    auto fetched = test::RunKhost(
        {"report", "k", "--root", b.root, "--fetch", "--agent", b.agent->address().ToString()},
        b.tmp.path());
    REQUIRE_MESSAGE(fetched.exit_code == 0, fetched.err);
    CHECK(fetched.err.find(": 0 new rows, 9 of 9 (complete)") != std::string::npos);
    CHECK(test::RowsIn(third) == 9);

    std::vector<std::string> fresh = b.RunArgs("k", db.url);
    fresh.push_back("--fresh");
    auto all = test::RunKhost(fresh, b.tmp.path());
    REQUIRE_MESSAGE(all.exit_code == 0, all.err);
    CHECK(all.err.find("reused") == std::string::npos);
    for (const auto& [variant, ids] : RunsOfRows(Newest(b.root + "/k/run"))) {
      CHECK(ids.size() == 1);
      CHECK(*ids.begin() != first_id);
    }
    std::filesystem::remove_all(b.root);
    b.Kernel("k", 3);
  }
}

TEST_CASE("khost history flags a configuration made slower, then faster again") {
  Bench b;
  for (const Backend& db : Backends(b.tmp.path())) {
    CAPTURE(db.name);
    // The one configuration spins 4 ms, then 12 ms, then 4 ms again: 6 repetitions each.
    for (const char* ms : {"4", "12", "4"}) {
      test::MakeKernelDir(b.root, "k", {{"spin.elf", {{"B", 1}}, {ms}}});
      std::vector<std::string> args = b.RunArgs("k", db.url);
      args[7] = "6";              // --reps
      args.push_back("--fresh");  // the third would reuse the first: the same ELF and argv
      auto r = test::RunKhost(args, b.tmp.path());
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    }
    const auto h =
        Json(test::RunKhost({"history", "k", "--db", db.url, "--format", "json"}, b.tmp.path()));
    CHECK(h["config"] == "B=1");
    REQUIRE(h["config_runs"].size() == 3);
    CHECK(h["config_runs"][0]["change"] == "first");
    CHECK(h["config_runs"][1]["change"] == "regression");
    CHECK(h["config_runs"][1]["ratio_to_previous"].get<double>() > 2);
    CHECK(h["config_runs"][2]["change"] == "improvement");
    CHECK(h["config_runs"][2]["ktune_version"].get<std::string>().find(" (") != std::string::npos);
    CHECK(h["best_runs"].size() == 3);
    auto page = test::RunKhost({"history", "k", "--db", db.url, "--html", b.tmp.path() + "/h"},
                               b.tmp.path());
    REQUIRE_MESSAGE(page.exit_code == 0, page.err);
    CHECK(page.out.find("regression") != std::string::npos);
    const std::string html = *ReadFile(b.tmp.path() + "/h/history.html");
    CHECK(html.find("<svg") != std::string::npos);
    std::filesystem::remove_all(b.root);
  }
}

// The run with a database that cannot be used: one line says so, the run's file is whole.
void RunWithoutDatabase(Bench& b, const std::string& url) {
  auto run = test::RunKhost(b.RunArgs("k", url), b.tmp.path());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  size_t said = 0;
  for (const std::string& line : run.ErrLines()) {
    if (line.find("the tuning database") == std::string::npos) continue;
    ++said;
    CHECK(line.find("the run goes on without it") != std::string::npos);
    CHECK(line.find("khost db import " + b.root + " adds them") != std::string::npos);
  }
  CHECK(said == 1);
  CHECK(test::RowsIn(test::OnlyResults(b.root + "/k/run")) == 2 * 3);
}

TEST_CASE("a database that cannot be used stops no run, and db import catches up") {
  Bench b;
  b.Kernel("k", 2);
  SUBCASE("an SQLite file that is not a database is said, and left as it is") {
    const std::string junk_path = b.tmp.path() + "/junk.db";
    const std::string junk(16384, 'j');
    REQUIRE(WriteFileAtomic(junk_path, junk).ok());
    RunWithoutDatabase(b, junk_path);
    CHECK(*ReadFile(junk_path) == junk);
    const std::string good = b.tmp.path() + "/good.db";
    auto import = test::RunKhost({"db", "import", b.root, "--db", good}, b.tmp.path());
    REQUIRE_MESSAGE(import.exit_code == 0, import.err);
    CHECK(import.out.find(std::to_string(ValuesIn(test::OnlyResults(b.root + "/k/run"))) +
                          " values new") != std::string::npos);
  }
  SUBCASE("a PostgreSQL server that is down is said; back up, import catches up") {
    const std::string url = Postgres().NewDatabase();
    Postgres().Stop();
    RunWithoutDatabase(b, url);
    REQUIRE(Postgres().Restart());
    auto import = test::RunKhost({"db", "import", b.root, "--db", url}, b.tmp.path());
    REQUIRE_MESSAGE(import.exit_code == 0, import.err);
    const size_t values = ValuesIn(test::OnlyResults(b.root + "/k/run"));
    CHECK(import.out.find(std::to_string(values) + " values new") != std::string::npos);
    const auto shown = Json(test::RunKhost({"db", "--db", url, "--format", "json"}, b.tmp.path()));
    CHECK(shown["measurements"] == values);
  }
}

}  // namespace
}  // namespace ktune::host
