// khost analyze, report --compare and tune --apply-best end to end: real runs on a real agent,
// plots drawn by gnuplot, the HTML report loaded in headless Chromium, and the statistics checked
// against scipy (Debian's python3-scipy) where it is installed.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/fs.h"
#include "common/strings.h"
#include "host/report/stats.h"
#include "host/util/subprocess.h"
#include "tests/contains.h"
#include "tests/integration/browser.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;

using test::Contains;

// spin.elf holding the CPU for 4, 8 and 16 ms: the ranking and its verdict are known.
void MakeSpinKernel(const std::string& root) {
  test::MakeKernelDir(root, "spin",
                      {{"spin.elf", {{"MS", 16}, {"ROWS", 1}}, {"16"}},
                       {"spin.elf", {{"MS", 4}, {"ROWS", 1}}, {"4"}},
                       {"spin.elf", {{"MS", 8}, {"ROWS", 2}}, {"8"}},
                       {"spin.elf", {{"MS", 4}, {"ROWS", 2}}, {"4"}}});
}

// A fresh results id of the kernel after a run: the newest file.
std::string NewestRun(const std::string& root, const std::string& kernel) {
  std::string newest;
  for (const auto& e : fs::directory_iterator(root + "/" + kernel + "/run/results")) {
    if (e.path().extension() == ".csv" && e.path().stem().string() > newest) {
      newest = e.path().stem().string();
    }
  }
  return newest;
}

TEST_CASE(
    "khost analyze: tables, high_correlations.csv, plots and an HTML report Chromium renders") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  MakeSpinKernel(root);
  test::AgentProcess agent(tmp.path() + "/store");
  auto run = test::RunKhost({"run", "spin", "--root", root, "--agent", agent.address().ToString(),
                             "--reps", "6", "--warmup", "0", "--events", "task-clock,page-faults"},
                            tmp.path());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string run_id = NewestRun(root, "spin");

  auto analyzed = test::RunKhost({"analyze", "spin", "--root", root}, tmp.path());
  REQUIRE_MESSAGE(analyzed.exit_code == 0, analyzed.err);
  // The 4 ms variants lead; against each other they are not distinguishable, or one is
  // faster: either way the verdict is stated, with the test; or, on a machine busy enough to
  // make the run drift as much as they differ (CI's, building beside it), "unstable" with why.
  CHECK(Contains(analyzed.out, "variants by median kernel-time"));
  CHECK(Contains(analyzed.out, "verdict: "));
  CHECK_MESSAGE((Contains(analyzed.out, "Mann-Whitney U = ") ||
                 Contains(analyzed.out, "verdict: unstable: ")),
                analyzed.out);
  CHECK(Contains(analyzed.out, "why it wins: "));
  CHECK(Contains(analyzed.out, "correlation with kernel-time across 4 variants"));
  CHECK(Contains(analyzed.out, "effect of MS"));
  CHECK(Contains(analyzed.out, "task-clock"));
  const std::string out = root + "/spin/run/analysis/" + run_id;
  CHECK(Contains(analyzed.err, "khost analyze: wrote " + out));
  // task-clock follows the spin time: the seed's file has it.
  auto high = ReadFile(out + "/high_correlations.csv");
  REQUIRE(high.ok());
  CHECK(high->starts_with("Metric,Correlation,P-Value\n"));
  CHECK(Contains(*high, "\ntask-clock,"));
  for (const char* plot : {"time_by_variant", "time_vs_task-clock", "heatmap_MS_ROWS"}) {
    for (const char* ext : {".png", ".svg"}) {
      const std::string path = out + "/" + plot + ext;
      CHECK_MESSAGE(fs::exists(path), path);
      if (fs::exists(path)) CHECK(fs::file_size(path) > 1000);
    }
  }
  auto html = ReadFile(out + "/report.html");
  REQUIRE(html.ok());
  CHECK(Contains(*html, "<h2>Verdict</h2>"));
  CHECK(Contains(*html, "<svg"));
  // Self-contained: nothing is fetched from anywhere. (gnuplot's SVGs reuse their own point
  // shapes through href='#gpPt7'.)
  CHECK_FALSE(Contains(*html, "src="));
  CHECK_FALSE(Contains(*html, "<script"));
  CHECK_FALSE(Contains(*html, "<link"));
  CHECK_FALSE(Contains(*html, "@import"));
  for (size_t at = html->find("href="); at != std::string::npos; at = html->find("href=", at + 1)) {
    CHECK_MESSAGE(html->substr(at + 6, 1) == "#", html->substr(at, 40));
  }

  // The same tables as Markdown, CSV and JSON.
  auto md = test::RunKhost({"analyze", "spin", "--root", root, "--format", "markdown", "--no-plots",
                            "--out", tmp.path() + "/md"},
                           tmp.path());
  REQUIRE(md.exit_code == 0);
  CHECK(Contains(md.out, "| rank | variant |"));
  auto json = test::RunKhost({"analyze", "spin", "--root", root, "--format", "json", "--no-plots",
                              "--out", tmp.path() + "/json"},
                             tmp.path());
  REQUIRE(json.exit_code == 0);
  // The model, as analysis.json holds it: numbers, checked against the results file by a
  // script that reads it as users' scripts would (/usr/bin/python3: json and statistics).
  CHECK(json.out.starts_with("{\n  \"schema\": \"ktune-analysis\",\n  \"version\": 1,"));
  CHECK(json.out == ReadFile(tmp.path() + "/json/analysis.json").value());
  if (fs::exists("/usr/bin/python3")) {
    auto checked = RunTool(
        {"/usr/bin/python3",
         std::string(KTUNE_SOURCE_DIR) + "/tests/integration/check_analysis_json.py",
         tmp.path() + "/json/analysis.json", root + "/spin/run/results/" + run_id + ".csv"});
    REQUIRE(checked.ok());
    CHECK_MESSAGE(checked->exit_code == 0, checked->output);
    CHECK(Contains(checked->output, "analysis.json: 4 variants ranked, "));
  } else {
    MESSAGE("skipped the script's check of analysis.json: no /usr/bin/python3");
  }

  // Headless Chromium loads the report: it parses, and renders a page image.
  const std::optional<test::BrowserView> view =
      test::ViewInChromium(out + "/report.html", tmp.path());
  if (!view) {
    MESSAGE("skipped the browser check: no chromium (Debian package chromium)");
    return;
  }
  CHECK(Contains(view->dom, "<h2>Verdict</h2>"));
  CHECK(Contains(view->dom, "<svg"));
  CHECK_FALSE(Contains(view->console, "Uncaught"));
  REQUIRE(fs::exists(view->screenshot));
  CHECK(fs::file_size(view->screenshot) > 10000);
}

TEST_CASE("khost report --compare: two runs side by side, variant by variant") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  MakeSpinKernel(root);
  test::AgentProcess agent(tmp.path() + "/store");
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    auto run = test::RunKhost({"run", "spin", "--root", root, "--agent", agent.address().ToString(),
                               "--reps", "4", "--warmup", "0", "--events", "task-clock"},
                              tmp.path());
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    ids.push_back(NewestRun(root, "spin"));
  }
  REQUIRE(ids[0] != ids[1]);
  auto c = test::RunKhost({"report", "spin", "--root", root, "--compare", ids[0] + "," + ids[1]},
                          tmp.path());
  REQUIRE_MESSAGE(c.exit_code == 0, c.err);
  CHECK(Contains(c.out, "run B " + ids[1] + " against run A " + ids[0]));
  CHECK(Contains(c.out, "geometric mean of B / A: "));
  CHECK(Contains(c.out, "0_spin.elf"));
  // A results file by path works as well as a run id.
  auto by_path = test::RunKhost({"report", "spin", "--root", root, "--format", "csv", "--compare",
                                 root + "/spin/run/results/" + ids[0] + ".csv," + ids[1]},
                                tmp.path());
  REQUIRE_MESSAGE(by_path.exit_code == 0, by_path.err);
  CHECK(by_path.out.starts_with("variant,A,B,B / A,p,n A,n B,verdict\n"));
  auto missing =
      test::RunKhost({"report", "spin", "--root", root, "--compare", "nope," + ids[1]}, tmp.path());
  CHECK(missing.exit_code == 1);
  CHECK(Contains(missing.err, "khost report: no run nope in "));
}

TEST_CASE("khost analyze on bad runs: no results, all invalid, one variant") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "bad", {{"segv.elf", {{"B", 1}}, {}}, {"segv.elf", {{"B", 2}}, {}}});
  auto none = test::RunKhost({"analyze", "bad", "--root", root}, tmp.path());
  CHECK(none.exit_code == 1);
  CHECK(Contains(none.err, "khost analyze: no results in "));
  test::AgentProcess agent(tmp.path() + "/store");
  auto run = test::RunKhost({"run", "bad", "--root", root, "--agent", agent.address().ToString(),
                             "--reps", "2", "--warmup", "0", "--events", "task-clock"},
                            tmp.path());
  // khost run fails too, as hyperfine does for a failing command, its rows kept (issue 33).
  CHECK(run.exit_code == 1);
  CHECK(Contains(run.err, "khost run: no variant ran correctly: all 2 failed every repetition (" +
                              std::string("0_segv.elf: signal:SIGSEGV;")));
  auto invalid = test::RunKhost({"analyze", "bad", "--root", root}, tmp.path());
  CHECK(invalid.exit_code == 1);
  CHECK(invalid.err ==
        "khost analyze: no variant of run " + NewestRun(root, "bad") +
            " was valid in every repetition: nothing to rank (2 variants, all failed)\n");

  test::MakeKernelDir(root, "one", {{"ok.elf", {{"B", 1}}, {}}});
  REQUIRE(test::RunKhost({"run", "one", "--root", root, "--agent", agent.address().ToString(),
                          "--reps", "3", "--warmup", "0", "--events", "task-clock"},
                         tmp.path())
              .exit_code == 0);
  auto one = test::RunKhost({"analyze", "one", "--root", root, "--no-plots"}, tmp.path());
  CHECK(one.exit_code == 0);
  CHECK(Contains(one.out,
                 "note: only one valid variant: nothing to compare it with or to correlate"));
  CHECK(Contains(one.out, "fewer than 3 variants with a value"));
  CHECK(Contains(one.out, "needs 6 (khost run --reps 6)"));
  CHECK_FALSE(Contains(one.out, "nan"));
}

TEST_CASE("khost tune --apply-best writes the winner into the spec and launcher constants") {
  test::TempDir tmp;
  const std::string kernels = tmp.path() + "/kernels";
  fs::copy(KTUNE_SOURCE_DIR "/kernels", kernels, fs::copy_options::recursive);
  const std::string root = tmp.path() + "/work";
  auto tuned = test::RunKhost(
      {"tune", "matmul", "--kernels", kernels, "--root", root, "--toolchain", "native", "--sample",
       "3", "--shape", "M=32", "--shape", "N=32", "--shape", "K=32"},
      tmp.path());
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  test::AgentProcess agent(tmp.path() + "/store");
  auto run = test::RunKhost({"run", "matmul", "--root", root, "--agent", agent.address().ToString(),
                             "--reps", "3", "--warmup", "0", "--events", "task-clock"},
                            tmp.path());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  auto applied = test::RunKhost(
      {"tune", "matmul", "--kernels", kernels, "--root", root, "--apply-best"}, tmp.path());
  REQUIRE_MESSAGE(applied.exit_code == 0, applied.err);
  CHECK(Contains(applied.out, "applied the winner of run " + NewestRun(root, "matmul")));
  auto spec = ReadFile(kernels + "/matmul/matmul.kspec");
  REQUIRE(spec.ok());
  CHECK(Contains(*spec, "\n# khost tune --apply-best: run " + NewestRun(root, "matmul")));
  const size_t at = spec->find("\nbest: BLOCK_SIZE_M=");
  REQUIRE(at != std::string::npos);
  const std::string best = spec->substr(at + 1, spec->find('\n', at + 1) - at - 1);
  // The launcher constants hold the same values.
  auto constants = ReadFile(kernels + "/matmul/best_constants.c");
  REQUIRE(constants.ok());
  const std::string m = best.substr(best.find("BLOCK_SIZE_M=") + 13);
  CHECK(Contains(*constants, "const int matmul_BLOCK_SIZE_M = " + m.substr(0, m.find(' ')) + ";"));
  CHECK(fs::exists(kernels + "/matmul/best_blk_constants.json"));
  // From the tuning database (every run; one here): the same configuration, said so.
  auto from_db = test::RunKhost(
      {"tune", "matmul", "--kernels", kernels, "--root", root, "--apply-best", "--from-db"},
      tmp.path());
  REQUIRE_MESSAGE(from_db.exit_code == 0, from_db.err);
  CHECK(Contains(from_db.out, "applied the tuning database's best (kernel-time "));
  CHECK(Contains(ReadFile(kernels + "/matmul/matmul.kspec").value(), "\n" + best + "\n"));
  CHECK(test::RunKhost({"tune", "matmul", "--kernels", kernels, "--root", root, "--from-db"},
                       tmp.path())
            .err.find("--from-db goes with --apply-best") != std::string::npos);
  // Applying again replaces the line; the spec still tunes.
  REQUIRE(test::RunKhost({"tune", "matmul", "--kernels", kernels, "--root", root, "--apply-best"},
                         tmp.path())
              .exit_code == 0);
  spec = ReadFile(kernels + "/matmul/matmul.kspec");
  CHECK(std::count(spec->begin(), spec->end(), '\n') > 0);
  size_t best_lines = 0;
  for (size_t p = spec->find("\nbest:"); p != std::string::npos; p = spec->find("\nbest:", p + 1)) {
    ++best_lines;
  }
  CHECK(best_lines == 1);
  // A spec whose constraints now exclude the winner: refused, nothing written.
  std::string excluded;
  const std::string pairs = best.substr(6);  // "BLOCK_SIZE_M=32 ..."
  for (std::string_view w : Split(pairs, ' ')) {
    const std::string pair(w);
    excluded += (excluded.empty() ? "" : " && ") + pair.substr(0, pair.find('=')) +
                " == " + pair.substr(pair.find('=') + 1);
  }
  const std::string constrained = *spec + "constraint: !(" + excluded + ")\n";
  REQUIRE(WriteFileAtomic(kernels + "/matmul/matmul.kspec", constrained).ok());
  auto refused = test::RunKhost(
      {"tune", "matmul", "--kernels", kernels, "--root", root, "--apply-best"}, tmp.path());
  CHECK(refused.exit_code == 1);
  CHECK_MESSAGE(Contains(refused.err, "is not a configuration of " + kernels +
                                          "/matmul/matmul.kspec as it is now"),
                refused.err);
  CHECK(ReadFile(kernels + "/matmul/matmul.kspec").value() == constrained);
  REQUIRE(WriteFileAtomic(kernels + "/matmul/matmul.kspec", *spec).ok());
  auto again = test::RunKhost(
      {"tune", "matmul", "--kernels", kernels, "--root", root, "--toolchain", "native", "--sample",
       "1", "--shape", "M=32", "--shape", "N=32", "--shape", "K=32"},
      tmp.path());
  CHECK_MESSAGE(again.exit_code == 0, again.err);
}

// scipy, from Debian's python3-scipy, on the same samples: pearsonr, spearmanr, mannwhitneyu.
std::string PythonWithScipy() {
  for (const char* python : {"/usr/bin/python3", "python3"}) {
    ToolOptions o;
    o.timeout_seconds = 60;
    auto r = RunTool({python, "-c", "import scipy.stats"}, o);
    if (r.ok() && r->exit_code == 0) return python;
  }
  return "";
}

TEST_CASE("correlations and Mann-Whitney agree with scipy") {
  const std::string python = PythonWithScipy();
  if (python.empty()) {
    MESSAGE("skipped: no python3 with scipy (Debian package python3-scipy)");
    return;
  }
  test::TempDir tmp;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0, 1);
  std::ostringstream script;
  script.precision(17);
  script << "import scipy.stats as s\n";
  struct Case {
    std::vector<double> x, y;
  };
  std::vector<Case> cases;
  for (size_t n : {3, 5, 7, 12, 30}) {
    Case c;
    for (size_t i = 0; i < n; ++i) {
      const double x = normal(rng);
      c.x.push_back(x);
      c.y.push_back(0.5 * x + normal(rng));
    }
    cases.push_back(c);
  }
  // Ties, and small samples on one side (exact), and rounded values (ties: asymptotic); 8 and
  // 8 without ties (exact, at scipy's edge), 9 and 9 (asymptotic).
  cases.push_back({{1, 2, 3, 4, 5, 6, 12, 16}, {7, 8, 9, 10, 11, 13, 14, 15}});
  cases.push_back({{1, 2, 3, 4, 5, 6, 12, 16, 17}, {7, 8, 9, 10, 11, 13, 14, 15, 18}});
  cases.push_back({{1, 2, 2, 3, 4, 4, 4, 5}, {2, 2, 3, 5, 6, 6, 7, 8}});
  cases.push_back({{1.5, 2.5, 3.5}, {0.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5}});
  auto list = [](const std::vector<double>& v) {
    std::ostringstream o;
    o.precision(17);
    o << "[";
    for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
    return o.str() + "]";
  };
  for (const Case& c : cases) {
    // Correlations need pairs: for samples of different sizes only the test is compared.
    script << "x=" << list(c.x) << "\ny=" << list(c.y) << "\nsame=len(x)==len(y)\n"
           << "p=s.pearsonr(x,y) if same else (0,0)\nr=s.spearmanr(x,y) if same else (0,0)\n"
           << "u=s.mannwhitneyu(x,y,alternative='two-sided')\n"
           << "print(repr(p[0]),repr(p[1]),repr(r[0]),repr(r[1]),repr(u[0]),repr(u[1]))\n";
  }
  REQUIRE(WriteFileAtomic(tmp.path() + "/check.py", script.str()).ok());
  ToolOptions o;
  o.timeout_seconds = 120;
  auto run = RunTool({python, tmp.path() + "/check.py"}, o);
  REQUIRE(run.ok());
  REQUIRE_MESSAGE(run->exit_code == 0, run->output);
  std::istringstream lines(run->output);
  for (const Case& c : cases) {
    double pr, pp, sr, sp, u, up;
    REQUIRE(static_cast<bool>(lines >> pr >> pp >> sr >> sp >> u >> up));
    const auto mw = MannWhitneyU(c.x, c.y);
    REQUIRE(mw.has_value());
    if (c.x.size() == c.y.size()) {
      const auto pearson = Pearson(c.x, c.y);
      const auto spearman = Spearman(c.x, c.y);
      REQUIRE(pearson.has_value());
      REQUIRE(spearman.has_value());
      CHECK(pearson->r == doctest::Approx(pr).epsilon(1e-9));
      CHECK(pearson->p_value == doctest::Approx(pp).epsilon(1e-7));
      CHECK(spearman->r == doctest::Approx(sr).epsilon(1e-9));
      CHECK(spearman->p_value == doctest::Approx(sp).epsilon(1e-7));
    }
    CHECK(mw->u == doctest::Approx(u));
    CHECK(mw->p_value == doctest::Approx(up).epsilon(1e-7));
  }
}

}  // namespace
}  // namespace ktune::host
