// The virtual board (scripts/vboard.sh): qemu-system-riscv64's virt machine with the SBI PMU
// (sscofpmf, -icount shift=0), a Linux built from Debian's linux-source-6.12 and the static
// riscv64 agentd. khost drives it like any board, so the RISC-V counting, pass and sampling
// paths run against a real kernel PMU. What qemu's PMU offers, and so what these tests can ask:
// cycles, instructions and three TLB events, each counted on one counter at a time (a second
// event of the same kind reads 0), user/kernel filtering through sscofpmf.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/fs.h"
#include "common/results.h"
#include "common/strings.h"
#include "host/results/results_dir.h"
#include "host/util/subprocess.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"
#include "tests/target/target.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;

const std::string kScript = KTUNE_SOURCE_DIR "/scripts/vboard.sh";

std::string RiscvElves() {
  return KTUNE_RISCV64_ELVES_DIR;
}

// Why the board cannot run here, or "".
std::string WhyNoBoard() {
  if (FindInPath("qemu-system-riscv64").empty()) {
    return "no qemu-system-riscv64 (Debian's qemu-system-riscv, from bookworm-backports)";
  }
  if (!fs::exists(test::RiscvAgentd())) {
    return "no riscv64 agentd at " + test::RiscvAgentd() + " (scripts/build_agent.sh riscv64)";
  }
  if (!fs::exists(RiscvElves() + "/loop_1000.elf")) {
    return "no riscv64 test programs (riscv64-linux-gnu-gcc was not found when configuring)";
  }
  return "";
}

using test::Contains;

// One board for one test: booted by scripts/vboard.sh start, powered off at the end.
class VirtualBoard {
 public:
  VirtualBoard(const std::string& dir, const std::vector<std::string>& options = {}) : dir_(dir) {
    std::vector<std::string> args = {"start", dir_};
    args.insert(args.end(), options.begin(), options.end());
    start_ = test::RunProgram(kScript, args, scratch_.path());
    const std::string marker = "vboard: agentd at ";
    const size_t at = start_.out.find(marker);
    if (start_.exit_code == 0 && at != std::string::npos) {
      address_ = start_.out.substr(at + marker.size());
      address_ = address_.substr(0, address_.find(' '));
    }
  }
  ~VirtualBoard() {
    if (!address_.empty()) test::RunProgram(kScript, {"stop", dir_}, scratch_.path());
  }
  bool up() const { return !address_.empty(); }
  // What vboard.sh said, for a failed start.
  std::string said() const { return start_.out + start_.err; }
  const std::string& address() const { return address_; }
  // The environment that gives khost the board's token (vboard.sh writes one per boot).
  std::map<std::string, std::string> env() const { return {{"KTUNE_TOKEN_FILE", dir_ + "/token"}}; }

 private:
  std::string dir_;
  test::TempDir scratch_;
  test::CommandResult start_;
  std::string address_;
};

// The rows of the newest results file of `kernel`.
std::vector<RepetitionRow> LatestRows(const std::string& root, const std::string& kernel) {
  std::string newest;
  for (const auto& e : fs::directory_iterator(root + "/" + kernel + "/run/results")) {
    if (e.path().extension() == ".csv" && e.path().string() > newest) newest = e.path().string();
  }
  auto parsed = ParseResultsCsv(ReadFile(newest).value());
  REQUIRE(parsed.ok());
  return parsed->rows;
}

TEST_CASE(
    "virtual board: instructions:u of a known loop are exact, cycles count, raw events "
    "that never run are not counted") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  VirtualBoard board(tmp.path() + "/board");
  REQUIRE_MESSAGE(board.up(), board.said());

  auto status =
      test::RunKhost({"agent", "status", "--agent", board.address()}, tmp.path(), board.env());
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  CHECK(Contains(status.out, "cpu:         riscv64"));
  CHECK(Contains(status.out, "kernel:      6.12."));

  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(
      root, "loop",
      {{"loop_1000.elf", {{"N", 1000}}, {}}, {"loop_1000000.elf", {{"N", 1000000}}, {}}},
      RiscvElves());
  // r1234 is a raw event the kernel accepts but no counter of qemu's PMU takes: it opens, is
  // never scheduled, and must come out "not counted" in a pass of its own.
  auto run = test::RunKhost({"run", "loop", "--root", root, "--agent", board.address(), "--reps",
                             "3", "--warmup", "1", "--events", "instructions:u,cycles:u,r1234"},
                            tmp.path(), board.env());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::vector<RepetitionRow> rows = LatestRows(root, "loop");
  REQUIRE(rows.size() == 12);  // 2 variants x 2 passes x 3 repetitions
  int counted = 0, never_ran = 0;
  for (const RepetitionRow& row : rows) {
    CHECK(row.valid);
    const double n = row.variant_index == 0 ? 1000 : 1000000;
    if (const MeasuredValue* v = row.Find("instructions:u");
        v && v->status != ValueStatus::kMissing) {
      // Two instructions load the count, two per iteration, three exit (tests/elves/riscv64/
      // loop.S); qemu counts the ecall as retired. Exact, every repetition.
      CHECK(v->status == ValueStatus::kOk);
      CHECK(v->value == 2 * n + 5);
      CHECK(v->running_ns == v->enabled_ns);
      const MeasuredValue* cycles = row.Find("cycles:u");
      REQUIRE(cycles != nullptr);
      // Under -icount shift=0 every instruction takes one cycle.
      CHECK(cycles->status == ValueStatus::kOk);
      CHECK(cycles->value == v->value);
      ++counted;
    }
    if (const MeasuredValue* raw = row.Find("r1234"); raw && raw->status != ValueStatus::kMissing) {
      CHECK(raw->status == ValueStatus::kNotCounted);
      CHECK(raw->running_ns == 0);
      ++never_ran;
    }
  }
  CHECK(counted == 6);
  CHECK(never_ran == 6);
  auto report = test::RunKhost({"report", "loop", "--root", root}, tmp.path());
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(Contains(report.out, "2000005"));
  // The raw event never ran in any repetition: its column is a line under the table.
  CHECK_MESSAGE(Contains(report.out, "\nnot counted: r1234\n"), report.out);
}

TEST_CASE("virtual board with two counters: the probe finds the budget and splits passes") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  VirtualBoard board(tmp.path() + "/board", {"--pmu-num", "2"});
  REQUIRE_MESSAGE(board.up(), board.said());
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "loop", {{"loop_1000000.elf", {{"N", 1000000}}, {}}}, RiscvElves());
  const std::string events =
      "instructions:u,cycles:u,iTLB-load-misses,dTLB-load-misses,dTLB-store-misses";
  auto run = test::RunKhost({"run", "loop", "--root", root, "--agent", board.address(), "--reps",
                             "2", "--warmup", "0", "--events", events},
                            tmp.path(), board.env());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  // Five events on two counters: three passes, every value counted the whole time.
  std::vector<RepetitionRow> rows = LatestRows(root, "loop");
  REQUIRE(rows.size() == 6);
  uint32_t max_pass = 0;
  for (const RepetitionRow& row : rows) {
    CHECK(row.valid);
    max_pass = std::max(max_pass, row.pass);
    for (const MeasuredValue& v : row.values) {
      if (v.status == ValueStatus::kMissing || v.enabled_ns == 0) continue;
      CHECK_MESSAGE(v.status == ValueStatus::kOk, v.name);
      CHECK_MESSAGE(v.running_ns == v.enabled_ns, v.name);
    }
    if (const MeasuredValue* v = row.Find("instructions:u"); v && v->status == ValueStatus::kOk) {
      CHECK(v->value == 2000005);
    }
  }
  CHECK(max_pass == 2);

  // --multiplex instead: one pass, the kernel rotates the five events over the two counters (on
  // its 4 ms tick, CONFIG_HZ=250) and every value is scaled, saying so. spin runs 100 ms of CPU
  // time: 25 rotations.
  const std::string spin_root = tmp.path() + "/spin-work";
  test::MakeKernelDir(spin_root, "spin", {{"spin.elf", {{"MS", 100}}, {"100"}}}, RiscvElves());
  auto mux = test::RunKhost({"run", "spin", "--root", spin_root, "--agent", board.address(),
                             "--reps", "1", "--warmup", "0", "--events", events, "--multiplex"},
                            tmp.path(), board.env());
  REQUIRE_MESSAGE(mux.exit_code == 0, mux.err);
  rows = LatestRows(spin_root, "spin");
  REQUIRE(rows.size() == 1);
  for (const char* name : {"instructions:u", "cycles:u", "iTLB-load-misses", "dTLB-load-misses",
                           "dTLB-store-misses"}) {
    const MeasuredValue* v = rows[0].Find(name);
    REQUIRE(v != nullptr);
    CHECK_MESSAGE(v->status == ValueStatus::kScaled, name);
    CHECK(v->running_ns > 0);
    CHECK(v->running_ns < v->enabled_ns);
  }
}

TEST_CASE(
    "virtual board: an interleaved --reps auto run drops the slower loop and counts every "
    "repetition exactly") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  VirtualBoard board(tmp.path() + "/board");
  REQUIRE_MESSAGE(board.up(), board.said());
  const std::string root = tmp.path() + "/work";
  // Two equal short loops and one a thousand times longer.
  test::MakeKernelDir(root, "loop",
                      {{"loop_1000.elf", {{"N", 1000}, {"B", 0}}, {}},
                       {"loop_1000.elf", {{"N", 1000}, {"B", 1}}, {}},
                       {"loop_1000000.elf", {{"N", 1000000}, {"B", 2}}, {}}},
                      RiscvElves());
  auto run =
      test::RunKhost({"run", "loop", "--root", root, "--agent", board.address(), "--reps", "auto",
                      "--max-reps", "8", "--warmup", "1", "--events", "instructions:u"},
                     tmp.path(), board.env());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string results = test::OnlyResults(root + "/loop/run");
  std::map<uint32_t, uint32_t> rows_of;
  for (const RepetitionRow& row : test::RowsOf(results)) {
    ++rows_of[row.variant_index];
    CHECK(row.valid);
    const double n = row.variant_index == 2 ? 1000000 : 1000;
    const MeasuredValue* v = row.Find("instructions:u");
    REQUIRE(v != nullptr);
    CHECK(v->status == ValueStatus::kOk);
    CHECK(v->value == 2 * n + 5);  // as in the first test: exact in every round
  }
  // Racing: the long loop is dropped after the 4 rounds every variant gets, every one of its
  // times above every one of the others'. The equal two, the best and the runner-up, get 6
  // rounds at least (the verdict's paired test needs 6) and go on, at most to the cap.
  CHECK(rows_of[2] == 4);
  for (uint32_t v : {0u, 1u}) {
    CHECK(rows_of[v] >= 6);
    CHECK(rows_of[v] <= 8);
  }
  auto meta = ReadRunMeta(RunMetaPath(results));
  REQUIRE(meta.ok());
  CHECK(meta->order == "interleaved");
  REQUIRE(meta->adaptive.has_value());
  CHECK(meta->complete);
  CHECK(Contains(run.out, " dropped as slower after 4"));
}

TEST_CASE("virtual board: cycles:u samples land in the hot function") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  VirtualBoard board(tmp.path() + "/board");
  REQUIRE_MESSAGE(board.up(), board.said());
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "spin", {{"spin.elf", {{"MS", 30}}, {"30"}}}, RiscvElves());
  auto run = test::RunKhost(
      {"run", "spin", "--root", root, "--agent", board.address(), "--reps", "1", "--warmup", "0",
       "--events", "instructions:u", "--record", "cycles:u", "--period", "100000"},
      tmp.path(), board.env());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  auto samples = test::RunKhost({"report", "spin", "--root", root, "--samples"}, tmp.path());
  REQUIRE_MESSAGE(samples.exit_code == 0, samples.err);
  // "cycles:u: 283 samples, period 28300000, spin_kernel period 28300000 (100.0%)": about 30 M
  // cycles in 100000-cycle periods, nearly all of them in spin_kernel.
  const std::string marker = "spin_kernel period ";
  const size_t at = samples.out.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, samples.out);
  const size_t open = samples.out.find('(', at), percent = samples.out.find('%', at);
  REQUIRE(open != std::string::npos);
  REQUIRE(percent != std::string::npos);
  const double share = ParseDouble(samples.out.substr(open + 1, percent - open - 1)).value();
  CHECK(share >= 90.0);
  const size_t count_at = samples.out.find("cycles:u: ");
  REQUIRE(count_at != std::string::npos);
  const int count =
      ParseInt(
          samples.out.substr(count_at + 10, samples.out.find(' ', count_at + 10) - count_at - 10))
          .value();
  CHECK(count >= 200);
}

TEST_CASE("virtual board: RVV matmul variants from khost tune run natively and validate") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  auto tuned = test::TuneSmallMatmul(root, tmp.path(), 3);
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  VirtualBoard board(tmp.path() + "/board");
  REQUIRE_MESSAGE(board.up(), board.said());
  auto run = test::RunKhost({"run", "matmul", "--root", root, "--agent", board.address(), "--reps",
                             "2", "--warmup", "0", "--events", "instructions:u,cycles:u"},
                            tmp.path(), board.env());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(Contains(run.out, "best: VL256_matmul_"));
  const std::vector<RepetitionRow> rows = LatestRows(root, "matmul");
  REQUIRE(rows.size() == 6);
  for (const RepetitionRow& row : rows) {
    CHECK_MESSAGE(row.valid,
                  row.outcome.ToString());  // exit 0 and "out OK": the vector code computed right
    const MeasuredValue* kernel_time = row.Find(kKernelTime);
    REQUIRE(kernel_time != nullptr);
    CHECK(kernel_time->status == ValueStatus::kOk);
    const MeasuredValue* instructions = row.Find("instructions:u");
    REQUIRE(instructions != nullptr);
    CHECK(instructions->status == ValueStatus::kOk);
    CHECK(instructions->value > 100000);
  }
}

TEST_CASE("virtual board: khost roofline measures RVV ceilings and says they are an emulator's") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  VirtualBoard board(tmp.path() + "/board");
  REQUIRE_MESSAGE(board.up(), board.said());
  const std::string db = "sqlite:" + tmp.path() + "/t.db";
  auto roof = test::RunKhost({"roofline",
                              "--agent",
                              board.address(),
                              "--toolchain",
                              "rvv-clang19",
                              "--root",
                              tmp.path() + "/roofline",
                              "--max-size",
                              "32KiB",
                              "--bytes-per-call",
                              "256KiB",
                              "--iterations",
                              "2000",
                              "--reps",
                              "1",
                              "--warmup",
                              "0",
                              "--db",
                              db,
                              "--format",
                              "json"},
                             tmp.path(), board.env());
  REQUIRE_MESSAGE(roof.exit_code == 0, roof.err);
  const auto j = nlohmann::json::parse(roof.out);
  CHECK(j.at("vectors") == "RVV, VLEN 256");
  // fp32 and fp64, scalar and LMUL 1, 2, 4 and 8 (32 to 256 bytes): every lane checked.
  CHECK(j.at("compute").size() == 10);
  for (const auto& s : j.at("streams")) CHECK(s.at("points").size() >= 2);
  CHECK(Contains(j.at("note").get<std::string>(), "an emulator's"));
  auto status = test::RunKhost({"agent", "status", "--agent", board.address(), "--db", db},
                               tmp.path(), board.env());
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  CHECK(Contains(status.out, "  compute:   fp32 "));
  CHECK(Contains(status.out, " GFLOP/s (vector 256 B)"));
}

// A PATH of links to every program in the system's PATH but `missing`.
std::string PathWithout(const std::string& dir, const std::string& missing) {
  fs::create_directories(dir);
  for (const char* from : {"/usr/local/bin", "/usr/bin", "/usr/sbin"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(from, ec)) {
      const std::string name = e.path().filename().string();
      if (name != missing && !fs::exists(dir + "/" + name))
        fs::create_symlink(e.path(), dir + "/" + name);
    }
  }
  return dir;
}

// Whether a process's command line mentions `text`.
bool AnyProcessMentions(const std::string& text) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    auto cmdline = ReadFile(e.path().string() + "/cmdline");
    if (!cmdline.ok()) continue;
    for (char& c : *cmdline) c = c == '\0' ? ' ' : c;
    if (Contains(*cmdline, text)) return true;
  }
  return false;
}

TEST_CASE("vboard.sh: a board that does not come up in time is stopped and reported") {
  if (const std::string why = WhyNoBoard(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  const std::string dir = tmp.path() + "/slow-board";
  auto r = test::RunProgram(kScript, {"start", dir, "--timeout", "0"}, tmp.path());
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(Contains(r.err, "vboard: the board did not come up within 0 s (stopped)"), r.err);
  CHECK_FALSE(fs::exists(dir + "/qemu.pid"));
  CHECK_FALSE(AnyProcessMentions(dir + "/console.log"));
  auto stop = test::RunProgram(kScript, {"stop", dir}, tmp.path());
  CHECK(stop.exit_code == 1);
  CHECK(Contains(stop.err, "vboard: no board runs from " + dir));
  auto bad = test::RunProgram(kScript, {"start", dir, "--pmu-num", "two"}, tmp.path());
  CHECK(bad.exit_code == 1);
  CHECK(Contains(bad.err, "vboard: not a number: two"));
}

TEST_CASE("vboard.sh: a missing emulator or cross compiler is named with its Debian package") {
  test::TempDir tmp;
  auto no_qemu =
      test::RunProgram(kScript, {"start", tmp.path() + "/board"}, tmp.path(),
                       {{"PATH", PathWithout(tmp.path() + "/path1", "qemu-system-riscv64")}});
  CHECK(no_qemu.exit_code == 1);
  CHECK_MESSAGE(Contains(no_qemu.err,
                         "vboard: qemu-system-riscv64 is missing: install the Debian "
                         "package qemu-system-riscv (from bookworm-backports)"),
                no_qemu.err);
  // With an empty cache the kernel must be built, which needs the cross compiler.
  auto no_gcc =
      test::RunProgram(kScript, {"build"}, tmp.path(),
                       {{"PATH", PathWithout(tmp.path() + "/path2", "riscv64-linux-gnu-gcc")},
                        {"KTUNE_VBOARD_CACHE", tmp.path() + "/cache"},
                        {"KTUNE_RISCV64_AGENTD", test::RiscvAgentd()}});
  CHECK(no_gcc.exit_code == 1);
  CHECK_MESSAGE(Contains(no_gcc.err,
                         "vboard: riscv64-linux-gnu-gcc is missing: install the Debian "
                         "package gcc-riscv64-linux-gnu"),
                no_gcc.err);
}

TEST_CASE("build_kernel.sh: a failed kernel build shows the end of its log and caches nothing") {
  test::TempDir tmp;
  // A kernel tree in Debian's layout whose configuration step fails.
  fs::create_directories(tmp.path() + "/src/linux-source-6.12");
  std::ofstream(tmp.path() + "/src/linux-source-6.12/Makefile")
      << "tinyconfig:\n\t@echo 'Kconfig: option FOO depends on nothing that exists'; exit 1\n";
  REQUIRE(std::system(("tar -C " + tmp.path() + "/src -cJf " + tmp.path() +
                       "/linux.tar.xz linux-source-6.12")
                          .c_str()) == 0);
  const std::string out = tmp.path() + "/kernel";
  auto r = test::RunProgram(KTUNE_SOURCE_DIR "/scripts/vboard/build_kernel.sh",
                            {out, tmp.path() + "/linux.tar.xz"}, tmp.path());
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(Contains(r.err, "vboard: configuring the kernel failed; the end of "), r.err);
  CHECK(Contains(r.err, "Kconfig: option FOO depends on nothing that exists"));
  CHECK_FALSE(fs::exists(out + "/Image"));
}

}  // namespace
}  // namespace ktune::host
