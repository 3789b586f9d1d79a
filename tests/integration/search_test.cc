// khost tune --strategy for real: a small spec whose configurations take known times (a busy loop
// of 5 ((A-3)^2 + (B-2)^2 + 1) milliseconds of CPU time, which it prints as its kernel-time: the
// best twice as fast as the next, whatever else the machine runs), one that does not compile, one
// that prints NOT OK and one that crashes; built with the native gcc, measured by a real agentd.
// The search's journal, the failures recorded with their reasons, khost killed mid-search and
// --resume, and the bad inputs refused before anything is built.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/fs.h"
#include "host/results/evaluations.h"
#include "host/results/results_dir.h"
#include "host/search/search_files.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSpec =
    "kernel: valley\nmain: main.c\n"
    "param: A = 1 2 3 4 5 6\nparam: B = 1 2 3 4\n"
    "constraint: A + B != 10\n"  // (6, 4) is left out: 23 feasible configurations
    "shape: N=1\nargs: {N}\n";

// (2, 2) does not compile, (5, 1) prints NOT OK, (1, 4) crashes; the rest spin for their time.
constexpr const char* kMain = R"(#include <signal.h>
#include <stdio.h>
#include <time.h>
#if A == 2 && B == 2
#error two two does not compile
#endif
int main(void) {
  if (A == 1 && B == 4) raise(SIGSEGV);
  const double ms = 5 * ((A - 3) * (A - 3) + (B - 2) * (B - 2) + 1);
  struct timespec t0, t;
  double spun_ms;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do {
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    spun_ms = (t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6;
  } while (spun_ms < ms);
  printf("Running C Kernel Time: %f ms\n", spun_ms);
  puts(A == 5 && B == 1 ? "out NOT OK" : "out OK");
  return 0;
}
)";

struct Search {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  std::string spec = tmp.path() + "/kernels/valley/valley.kspec";
  std::unique_ptr<test::AgentProcess> agent =
      std::make_unique<test::AgentProcess>(tmp.path() + "/store");
  Search() {
    fs::create_directories(fs::path(spec).parent_path());
    std::ofstream(spec) << kSpec;
    std::ofstream(fs::path(spec).parent_path() / "main.c") << kMain;
  }
  std::vector<std::string> Args(std::vector<std::string> extra) const {
    std::vector<std::string> a = {
        "tune",   spec,     "--root", root,      "--toolchain",
        "native", "--reps", "3",      "--agent", agent->address().ToString()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  test::CommandResult Khost(std::vector<std::string> extra) const {
    return test::RunKhost(Args(std::move(extra)), tmp.path());
  }
  // Another search, the earlier ones' journals removed first (Read reads the one left).
  test::CommandResult NewSearch(std::vector<std::string> extra) const {
    fs::remove_all(root + "/valley/run/searches");
    return Khost(std::move(extra));
  }
  std::string Journal() const {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root + "/valley/run/searches", ec)) {
      if (e.path().extension() == ".csv") return e.path().string();
    }
    return "";
  }
  Evaluations Read() const {
    auto text = ReadFile(Journal());
    auto e = ParseEvaluations(text.ok() ? *text : "");
    return e.ok() ? *e : Evaluations{};
  }
};

using test::Contains;

TEST_CASE("search grid: every feasible configuration once, failures kept with their reasons") {
  Search s;
  auto r = s.Khost({"--strategy", "grid", "--batch", "6"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const Evaluations e = s.Read();
  CHECK(e.names == std::vector<std::string>{"A", "B"});
  REQUIRE(e.rows.size() == 23);
  std::map<std::vector<int64_t>, Evaluation> by;
  for (const Evaluation& x : e.rows) CHECK(by.emplace(x.config, x).second);
  CHECK(by.count({6, 4}) == 0);  // the constraint's
  CHECK(by.at({2, 2}).status == "build failed");
  CHECK(by.at({5, 1}).status == "NOT OK");
  CHECK(by.at({1, 4}).status == "signal:SIGSEGV");
  size_t ok = 0;
  for (const auto& [config, x] : by) {
    if (!x.time_ns) continue;
    ++ok;
    // The busy loop's milliseconds (its kernel-time: what the search compares).
    const double ms =
        5 * ((config[0] - 3) * (config[0] - 3) + (config[1] - 2) * (config[1] - 2) + 1);
    CHECK(*x.time_ns >= ms * 1e6);
    CHECK_FALSE(x.run.empty());
  }
  CHECK(ok == 20);
  CHECK(Contains(r.out, "best: A=3 B=2"));
  CHECK(Contains(r.err, "valley_2_2_g_static_O2.elf failed to build"));
  CHECK(Contains(e.comments[1], "strategy grid"));
  // configs.json lists the configurations measured ok, so that khost report sees them.
  auto report = test::RunKhost({"report", "valley", "--root", s.root}, s.tmp.path());
  CHECK(report.exit_code == 0);
  // khost analyze --search: the summary, every evaluation, the convergence plot in search.html.
  auto analyzed =
      test::RunKhost({"analyze", "valley", "--root", s.root, "--search", "all"}, s.tmp.path());
  REQUIRE_MESSAGE(analyzed.exit_code == 0, analyzed.err);
  CHECK(Contains(analyzed.out, "grid, seed 0"));
  CHECK(Contains(analyzed.out, "signal:SIGSEGV"));
  const std::string html = ReadFile(s.root + "/valley/run/analysis/searches/search.html").value();
  CHECK(Contains(html, "<svg"));
  CHECK(Contains(html, "build failed"));
  CHECK(fs::exists(s.root + "/valley/run/analysis/searches/convergence.png"));
}

TEST_CASE("search at two shapes: each configuration measured at both, the geometric mean") {
  Search s;
  auto r = s.Khost({"--strategy", "grid", "--batch", "12", "--shape", "N=1", "--shape", "N=2"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const Evaluations e = s.Read();
  REQUIRE(e.rows.size() == 23);
  CHECK(Contains(e.comments[3], "at each shape; over the shapes, the geometric mean"));
  std::map<std::vector<int64_t>, Evaluation> by;
  for (const Evaluation& x : e.rows) by.emplace(x.config, x);
  CHECK(by.at({1, 4}).status == "signal:SIGSEGV at N=1");
  CHECK(by.at({2, 2}).status == "build failed");
  // The busy loop does not read N: the geometric mean is its time.
  CHECK(*by.at({3, 3}).time_ns >= 10e6);
  CHECK(Contains(r.out, "best: A=3 B=2"));
  // Each run holds both shapes of every configuration it measured.
  const auto rows = test::RowsOf(ResultsPath(s.root + "/valley/run", by.at({3, 3}).run));
  std::set<std::string> shapes;
  for (const RepetitionRow& row : rows) shapes.insert(FormatParams(row.shape));
  CHECK(shapes == std::set<std::string>{"N=1", "N=2"});
}

TEST_CASE("search --resume refuses shapes that changed under its journal") {
  Search s;
  const std::string shapes = s.tmp.path() + "/shapes.txt";
  std::ofstream(shapes) << "N=1\n";
  auto r = s.Khost({"--strategy", "random", "--budget", "2", "--seed", "1", "--shapes", shapes});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ofstream(shapes) << "N=2\n";
  auto resumed = test::RunKhost({"tune", s.spec, "--root", s.root, "--resume"}, s.tmp.path());
  CHECK(resumed.exit_code != 0);
  CHECK(Contains(resumed.err,
                 "shape N=1; it would go on with kernel valley, toolchain native, "
                 "shape N=2"));
}

TEST_CASE("search killed mid-way: --resume measures only what the journal lacks") {
  Search s;
  const std::vector<std::string> args =
      s.Args({"--strategy", "random", "--budget", "12", "--batch", "2", "--seed", "5"});
  auto khost = test::StartKhost(args, s.tmp.path(), s.tmp.path() + "/first");
  REQUIRE(test::WaitFor([&] { return s.Read().rows.size() >= 4; }));
  khost->Kill(SIGKILL);
  khost->Wait();
  const Evaluations before = s.Read();
  REQUIRE(before.rows.size() < 12);

  auto resumed = test::RunKhost({"tune", s.spec, "--root", s.root, "--resume"}, s.tmp.path());
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(Contains(resumed.out, "evaluations kept"));
  const Evaluations after = s.Read();
  REQUIRE(after.rows.size() == 12);
  std::set<std::vector<int64_t>> configs;
  for (const Evaluation& x : after.rows) CHECK(configs.insert(x.config).second);
  for (size_t i = 0; i < before.rows.size(); ++i) {
    CHECK(after.rows[i].config == before.rows[i].config);
    CHECK(after.rows[i].run == before.rows[i].run);
  }
  CHECK(Contains(resumed.out, std::to_string(12 - before.rows.size()) + " evaluated now"));

  // The same search from the start, uninterrupted, asks the same configurations.
  Search fresh;
  auto whole =
      fresh.Khost({"--strategy", "random", "--budget", "12", "--batch", "2", "--seed", "5"});
  REQUIRE_MESSAGE(whole.exit_code == 0, whole.err);
  std::set<std::vector<int64_t>> fresh_configs;
  for (const Evaluation& x : fresh.Read().rows) fresh_configs.insert(x.config);
  CHECK(fresh_configs == configs);

  auto done = test::RunKhost({"tune", s.spec, "--root", s.root, "--resume"}, s.tmp.path());
  CHECK(done.exit_code == 0);
  CHECK(Contains(done.out, "0 evaluated now"));
}

TEST_CASE("search killed during a batch: --resume continues that batch's run on the agent") {
  Search s;
  const std::vector<std::string> args =
      s.Args({"--strategy", "random", "--budget", "8", "--batch", "4", "--seed", "3"});
  auto khost = test::StartKhost(args, s.tmp.path(), s.tmp.path() + "/first");
  const std::string results = s.root + "/valley/run/results";
  // Killed once a batch's run has rows, before they are journaled.
  SearchMeta::Batch cut;
  REQUIRE(test::WaitFor([&] {
    auto meta = ReadSearchMeta(s.Journal());
    if (!meta.ok() || !meta->pending) return false;
    cut = *meta->pending;
    return test::RowsIn(ResultsPath(s.root + "/valley/run", cut.run_id)) >= 1;
  }));
  khost->Kill(SIGKILL);
  khost->Wait();
  const size_t journaled = s.Read().rows.size();

  auto resumed = test::RunKhost({"tune", s.spec, "--root", s.root, "--resume"}, s.tmp.path());
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  const Evaluations after = s.Read();
  REQUIRE(after.rows.size() == 8);
  if (journaled < after.rows.size()) {
    CHECK(Contains(resumed.out, "continuing run " + cut.run_id));
  }
  // The cut batch's configurations were measured by its run, once: no other run measured them.
  size_t in_cut_run = 0;
  for (const Evaluation& e : after.rows) {
    const bool of_cut =
        std::find(cut.configs.begin(), cut.configs.end(), e.config) != cut.configs.end();
    if (!of_cut || e.status == "build failed") continue;
    CHECK(e.run == cut.run_id);
    ++in_cut_run;
  }
  CHECK(in_cut_run >= 1);
  std::set<std::string> runs;
  for (const Evaluation& e : after.rows) {
    if (!e.run.empty()) runs.insert(e.run);
  }
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(results)) files += e.path().extension() == ".csv";
  CHECK(files == runs.size());
  std::set<RowKey> keys;  // each repetition once in the cut run's file
  for (const RepetitionRow& r : test::RowsOf(ResultsPath(s.root + "/valley/run", cut.run_id))) {
    CHECK(keys.insert(KeyOf(r)).second);
  }
  CHECK_FALSE(keys.empty());
  CHECK_FALSE(ReadSearchMeta(s.Journal()).value().pending);
}

TEST_CASE("search at a new shape starts from the tuning database's best at the nearest one") {
  Search s;
  // Every configuration at N=1 into the search's tuning database (the test home's).
  auto grid = s.Khost({"--strategy", "grid", "--batch", "23", "--shape", "N=1"});
  REQUIRE_MESSAGE(grid.exit_code == 0, grid.err);
  CHECK_FALSE(Contains(grid.out, "warm start: 3"));
  auto r = s.NewSearch({"--strategy", "bayes", "--budget", "6", "--batch", "3", "--seed", "2",
                        "--warm-start", "3", "--shape", "N=4"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out,
                 "warm start: 3 configurations first: the tuning database's best at N=1 (same "
                 "board, nearest shape)"));
  const Evaluations e = s.Read();
  REQUIRE(e.rows.size() == 6);
  CHECK(e.comments.back() ==
        "warm start: 3 configurations first: the tuning database's best at "
        "N=1 (same board, nearest shape)");
  // The first batch is N=1's best, (3, 2) at 5 ms, then two of the three at 10 ms.
  CHECK(e.rows[0].config == std::vector<int64_t>{3, 2});
  const std::set<std::vector<int64_t>> next = {{4, 2}, {3, 1}, {3, 3}};
  CHECK(next.count(e.rows[1].config) == 1);
  CHECK(next.count(e.rows[2].config) == 1);
  auto meta = ReadSearchMeta(s.Journal());
  REQUIRE(meta.ok());
  CHECK(meta->warm_start.size() == 3);
  CHECK(meta->warm_start[0] == std::vector<int64_t>{3, 2});

  // --warm-start 0: cold.
  auto cold =
      s.NewSearch({"--strategy", "random", "--budget", "2", "--warm-start", "0", "--shape", "N=4"});
  REQUIRE_MESSAGE(cold.exit_code == 0, cold.err);
  CHECK_FALSE(Contains(cold.out, "warm start"));
}

TEST_CASE("search repeated: every configuration reused, and after one changed only it measured") {
  Search s;
  // A space where every configuration runs: A 3..6, B 2..4, (6, 4) left out: 11.
  std::ofstream(s.spec, std::ios::app) << "constraint: A >= 3\nconstraint: B >= 2\n";
  const std::vector<std::string> args = {"--strategy", "bayes", "--budget", "6",
                                         "--batch",    "3",     "--seed",   "2"};
  auto first = s.Khost(args);
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  CHECK(Contains(first.out, "(6 evaluated now, 0 infeasible)"));
  const Evaluations before = s.Read();
  REQUIRE(before.rows.size() == 6);

  // The same search again: the six configurations, every one reused.
  auto again = s.NewSearch(args);
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(Contains(again.out,
                 "warm start: 6 configurations first: those measured at N=1 on this board within "
                 "the reuse age, each reused unless its ELF, test data or method changed"));
  CHECK(Contains(again.out,
                 "(6 evaluated now; of their variants 0 measured, 6 reused from the tuning "
                 "database; 0 infeasible)"));

  // One configuration's source changed (a global only its build has): it alone is measured.
  const std::vector<int64_t> changed = before.rows[0].config;
  std::ofstream(fs::path(s.spec).parent_path() / "main.c", std::ios::app)
      << "#if A == " << changed[0] << " && B == " << changed[1] << "\nint retuned = 1;\n#endif\n";
  auto changed_run = s.NewSearch(args);
  REQUIRE_MESSAGE(changed_run.exit_code == 0, changed_run.err);
  CHECK(Contains(changed_run.out,
                 "(6 evaluated now; of their variants 1 measured, 5 reused from the tuning "
                 "database; 0 infeasible)"));
  std::set<std::vector<int64_t>> asked, asked_before;
  for (const Evaluation& e : s.Read().rows) asked.insert(e.config);
  for (const Evaluation& e : before.rows) asked_before.insert(e.config);
  CHECK(asked == asked_before);

  // --fresh: nothing reused, and the search is the strategy's own again.
  auto fresh = s.NewSearch([&] {
    std::vector<std::string> a = args;
    a.push_back("--fresh");
    return a;
  }());
  REQUIRE_MESSAGE(fresh.exit_code == 0, fresh.err);
  CHECK_FALSE(Contains(fresh.out, "those measured at N=1"));
  CHECK(Contains(fresh.out, "(6 evaluated now, 0 infeasible)"));
}

TEST_CASE("search: bad input is one error line before anything is built") {
  Search s;
  auto error = [&](std::vector<std::string> extra) {
    auto r = s.Khost(std::move(extra));
    CHECK(r.exit_code != 0);
    CHECK(r.ErrLines().size() == 1);
    CHECK_FALSE(fs::exists(s.root + "/valley/run/bin"));
    return r.err;
  };
  CHECK(Contains(error({"--strategy", "hill"}),
                 "unknown strategy 'hill' (grid, random, anneal, genetic, bayes)"));
  CHECK(Contains(error({"--strategy", "bayes", "--budget", "0"}),
                 "--budget '0': a whole number of evaluations from 1 to 10000000"));
  CHECK(Contains(error({"--strategy", "anneal"}),
                 "--strategy anneal needs --budget N or --budget-time SECONDS"));
  CHECK(Contains(error({"--budget", "5"}), "--budget goes with --strategy"));
  CHECK(Contains(error({"--warm-start", "5"}), "--warm-start goes with --strategy"));
  CHECK(Contains(error({"--strategy", "random", "--budget", "2", "--warm-start", "-1"}),
                 "--warm-start '-1'"));
  CHECK(Contains(error({"--strategy", "grid", "--sample", "3"}),
                 "--strategy cannot go with --sample"));
  CHECK(Contains(error({"--strategy", "grid", "--shape", "N=1", "--resume"}),
                 "--resume continues the search as it was asked"));
  // A space the constraints leave empty.
  std::ofstream(s.spec, std::ios::app) << "constraint: A > 100\n";
  CHECK(Contains(error({"--strategy", "grid"}), "constraint"));

  // A budget beyond the space: said, and the grid measured.
  Search big;
  auto r = big.Khost({"--strategy", "bayes", "--budget", "100"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out,
                 "the budget of 100 evaluations is more than the 23 feasible "
                 "configurations: measuring every one (grid)"));
  CHECK(big.Read().rows.size() == 23);
}

}  // namespace
}  // namespace ktune::host
