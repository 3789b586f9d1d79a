// Tuning across problem shapes for real: matmul built natively once per configuration, its test
// data and golden outputs made per shape, checked at each, measured by a real agent at each,
// analyzed per shape, and each shape's winner written into matmul_dispatch.h, which a C program
// (kernels/matmul/dispatch_example.c) compiles and looks up. And bad shapes refused before
// anything is built.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/fs.h"
#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/report/shapes_report.h"
#include "host/results/kernel_dir.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

using test::Contains;

std::string OnlyLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

TEST_CASE("two shapes: built once, checked and run at each, a winner each, dispatched in C") {
  test::TempDir tmp;
  const std::string kernels = tmp.path() + "/kernels", root = tmp.path() + "/work";
  fs::copy(KTUNE_SOURCE_DIR "/kernels", kernels, fs::copy_options::recursive);
  const std::string shapes = tmp.path() + "/shapes.txt";
  std::ofstream(shapes) << "# two projections\nM=32 N=32 K=32\nM=48 N=16 K=64  # taller\n";

  auto tuned =
      test::RunKhost({"tune", "matmul", "--kernels", kernels, "--root", root, "--toolchain",
                      "native", "--sample", "3", "--seed", "4", "--shapes", shapes, "--check"},
                     tmp.path());
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  CHECK(Contains(tuned.out, "built 3, up to date 0, failed 0"));
  CHECK(Contains(tuned.out, "check: 6 of 6 runs (3 variants at 2 shapes) print 'out OK'"));
  auto dir = LoadKernelDir(root, "matmul");
  REQUIRE(dir.ok());
  REQUIRE(dir->variants.size() == 6);
  for (const KernelVariant& v : dir->variants) {
    REQUIRE(v.shape.size() == 4);  // M, N, K and RUN_COUNT
    CHECK(v.test_data == "matmul/run/test_data/" + v.shape[0].first + "=" + v.shape[0].second +
                             ",N=" + v.shape[1].second + ",K=" + v.shape[2].second +
                             ",RUN_COUNT=3");
    // The golden output of each shape in its own directory: C is M x N.
    CHECK(fs::exists(root + "/" + v.test_data + "/matrix_" + v.shape[0].second + "x" +
                     v.shape[1].second + "_3.txt"));
  }
  CHECK(dir->variants[0].elf_path == dir->variants[1].elf_path);  // one ELF, two shapes

  test::AgentProcess agent(tmp.path() + "/store");
  auto run = test::RunKhost({"run", "matmul", "--root", root, "--agent", agent.address().ToString(),
                             "--reps", "6", "--warmup", "1"},
                            tmp.path());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(Contains(run.out, "best at M=32 N=32 K=32 RUN_COUNT=3: "));
  CHECK(Contains(run.out, "best at M=48 N=16 K=64 RUN_COUNT=3: "));
  const std::string results = test::OnlyResults(root + "/matmul/run");
  const std::vector<RepetitionRow> rows = test::RowsOf(results);
  CHECK(rows.size() == 36);
  for (const RepetitionRow& r : rows) {
    CHECK(r.valid);  // every shape's own data checked out on the agent
    CHECK(r.shape == dir->variants[r.variant_index].shape);
  }

  // --reps auto races every variant against one best: refused across shapes, before measuring.
  auto raced = test::RunKhost(
      {"run", "matmul", "--root", root, "--agent", agent.address().ToString(), "--reps", "auto"},
      tmp.path());
  CHECK(raced.exit_code != 0);
  CHECK(Contains(raced.err, "--reps auto races every variant against one best"));
  CHECK(test::RowsOf(results).size() == 36);

  // khost run --shape: only that shape's variants; a shape no variant runs at is an error.
  auto one = test::RunKhost({"run", "matmul", "--root", root, "--agent", agent.address().ToString(),
                             "--reps", "2", "--shape", "M=48"},
                            tmp.path());
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  CHECK(Contains(one.err, "khost run: 6 rows in "));
  auto none = test::RunKhost({"run", "matmul", "--root", root, "--agent",
                              agent.address().ToString(), "--shape", "M=7 N=32"},
                             tmp.path());
  CHECK(none.exit_code != 0);
  CHECK(Contains(none.err, "--shape M=7 N=32: no variant of matmul runs at that shape"));

  auto analyzed = test::RunKhost(
      {"analyze", "matmul", "--root", root, "--run", fs::path(results).stem().string()},
      tmp.path());
  REQUIRE_MESSAGE(analyzed.exit_code == 0, analyzed.err);
  CHECK(Contains(analyzed.out, "The winner at each shape"));
  CHECK(Contains(analyzed.out, "Time relative to each shape's fastest"));
  const std::string out = root + "/matmul/run/analysis/" + fs::path(results).stem().string();
  for (const char* f : {"/shapes.html", "/shapes.json", "/M=32,N=32,K=32,RUN_COUNT=3/report.html",
                        "/M=48,N=16,K=64,RUN_COUNT=3/report.html"}) {
    CHECK_MESSAGE(fs::exists(out + f), std::string(out + f));
  }

  // The tuning database's best at each shape (of every run: the shapes' results are this run's).
  auto from_db = test::RunKhost(
      {"tune", "matmul", "--kernels", kernels, "--root", root, "--apply-best", "--from-db"},
      tmp.path());
  REQUIRE_MESSAGE(from_db.exit_code == 0, from_db.err);
  CHECK(Contains(from_db.out, "matmul_dispatch.h: the database's best at each of 2 shapes"));
  auto applied = test::RunKhost({"tune", "matmul", "--kernels", kernels, "--root", root,
                                 "--apply-best", "--run", fs::path(results).stem().string()},
                                tmp.path());
  REQUIRE_MESSAGE(applied.exit_code == 0, applied.err);
  CHECK(Contains(applied.out, "matmul_dispatch.h: the winner at each of 2 shapes"));
  const std::string exe = tmp.path() + "/dispatch_example";
  auto built =
      test::RunProgram("cc",
                       {"-std=c99", "-Wall", "-Wextra", "-Werror", "-I", kernels + "/matmul", "-o",
                        exe, kernels + "/matmul/dispatch_example.c"},
                       tmp.path());
  REQUIRE_MESSAGE(built.exit_code == 0, built.err);
  // Each measured shape dispatches to its winner, as khost's analysis of the run names it; a
  // shape near the first, to the first's.
  std::map<std::string, std::string> winner;  // "32x32x32" -> "BLOCK_SIZE_M=... ..."
  for (const ShapeRows& s : SplitByShape(rows)) {
    const RunReport report = BuildReport(s.rows);
    auto a = Analyze(report);
    REQUIRE(a.ok());
    std::string config;
    for (const auto& [name, value] : report.variants[a->ranking.front().variant].params) {
      config += (config.empty() ? "" : " ") + name + "=" + value;
    }
    winner[s.shape[0].second + "x" + s.shape[1].second + "x" + s.shape[2].second] = config;
  }
  REQUIRE(winner.size() == 2);
  for (const auto& [shape, config] : winner) {
    auto looked = test::RunProgram(exe, {shape}, tmp.path());
    CHECK(looked.exit_code == 0);
    CHECK_MESSAGE(OnlyLine(looked.out) == config, shape);
  }
  CHECK(OnlyLine(test::RunProgram(exe, {"30x34x32"}, tmp.path()).out) == winner.at("32x32x32"));
  CHECK(OnlyLine(test::RunProgram(exe, {"64x16x64"}, tmp.path()).out) == winner.at("48x16x64"));
}

TEST_CASE("bad shapes: one error naming the file and line, before anything is built") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work", shapes = tmp.path() + "/s.txt";
  auto error = [&](const std::string& file) {
    std::ofstream(shapes) << file;
    auto r = test::RunKhost({"tune", "matmul", "--kernels", KTUNE_SOURCE_DIR "/kernels", "--root",
                             root, "--toolchain", "native", "--shapes", shapes},
                            tmp.path());
    CHECK(r.exit_code != 0);
    CHECK_MESSAGE(r.ErrLines().size() == 1, r.err);
    CHECK_FALSE(fs::exists(root));
    return r.err;
  };
  CHECK(Contains(error("M=8 N=8 K=8\nM=16 N=8\n"),
                 shapes + ":2: K not given (a shape gives M, N, K, the dimensions of the spec's "
                          "tensors)"));
  CHECK(Contains(error("M=8 N=8 K=8\n\nK=8 N=8 M=8\n"),
                 shapes + ":3: M=8 N=8 K=8 RUN_COUNT=3 is the shape of " + shapes + ":1 again"));
  CHECK(Contains(error("M=8 N=0 K=8\n"),
                 shapes + ":1: N=0: a shape value is an integer from 1 to 2147483647"));
  CHECK(Contains(error("M=8 N=8 K=8.5\n"),
                 shapes + ":1: K=8.5: a shape value is an integer from 1 to 2147483647"));
  CHECK(Contains(error("M=8 N=8 K=8 Q=1\n"), shapes + ":1: "));
  CHECK(Contains(error("# nothing\n"), "holds no shape"));
  // A main that reads <kernel>/run/test_data itself would find no data at several shapes.
  const std::string spec = tmp.path() + "/own/own.kspec";
  fs::create_directories(tmp.path() + "/own");
  std::ofstream(spec) << "kernel: own\nmain: main.c\nparam: B = 1 2\nshape: N=4\nargs: {N}\n"
                         "input: A float32 [N, N] uniform(-1, 1)\n";
  std::ofstream(tmp.path() + "/own/main.c") << "int main(void) { return 0; }\n";
  auto own = test::RunKhost(
      {"tune", spec, "--root", root, "--toolchain", "native", "--shape", "N=4", "--shape", "N=8"},
      tmp.path());
  CHECK(own.exit_code != 0);
  CHECK(Contains(own.err, "several shapes need a main that reads its data through"));
  CHECK_FALSE(fs::exists(root));

  fs::remove(shapes);
  auto missing = test::RunKhost({"tune", "matmul", "--kernels", KTUNE_SOURCE_DIR "/kernels",
                                 "--root", root, "--toolchain", "native", "--shapes", shapes},
                                tmp.path());
  CHECK(missing.exit_code != 0);
  CHECK(Contains(missing.err, "--shapes"));
  CHECK_FALSE(fs::exists(root));
}

}  // namespace
}  // namespace ktune::host
