// The qemu-user target: a static riscv64 agentd under qemu-riscv64 serves khost on loopback and
// measures RVV variants built by khost tune (clang-19, VLEN 256) through
// `--exec-wrapper "qemu-riscv64 -cpu rv64,v=true,vlen=256"`. perf_event_open is ENOSYS under
// qemu-user, so counters come out `not supported`; times and validity are still measured.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "common/fs.h"
#include "common/results.h"
#include "common/version.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"
#include "tests/target/target.h"

namespace ktune {
namespace {

using test::Contains;

// docs/TARGET.md's budget for the board binary; a change that grows it past shows here first.
TEST_CASE("the static riscv64 agentd stays within its 1.5 MB budget") {
  const std::string agentd = test::RiscvAgentd();
  if (!std::filesystem::exists(agentd)) {
    MESSAGE("skipped: no riscv64 agentd at " << agentd << " (scripts/build_agent.sh riscv64)");
    return;
  }
  const uintmax_t size_bytes = std::filesystem::file_size(agentd);
  MESSAGE("agentd riscv64: " << size_bytes << " bytes");
  CHECK(size_bytes <= 1500000);
}

// The board's Debian package: cpack in the static tree makes ktune-agentd for riscv64 with the
// stripped agentd in /usr/bin, which runs (under qemu-user here) from where dpkg-deb puts it.
TEST_CASE("the riscv64 agentd's Debian package holds the static agentd, which runs") {
  const std::string agentd = test::RiscvAgentd();
  if (!std::filesystem::exists(agentd)) {
    MESSAGE("skipped: no riscv64 agentd at " << agentd << " (scripts/build_agent.sh riscv64)");
    return;
  }
  const std::string tree = std::filesystem::path(agentd).parent_path().parent_path().string();
  test::TempDir tmp;
  const auto pack = test::RunProgram(
      "cpack", {"--config", tree + "/CPackConfig.cmake", "-B", tmp.path() + "/pkg"}, tmp.path());
  REQUIRE_MESSAGE(pack.exit_code == 0, (pack.out + pack.err));
  const std::string deb = tmp.path() + "/pkg/ktune-agentd_" KTUNE_VERSION "_riscv64.deb";
  REQUIRE_MESSAGE(std::filesystem::exists(deb), pack.out);
  const auto fields =
      test::RunProgram("dpkg-deb", {"-f", deb, "Package", "Architecture"}, tmp.path());
  CHECK(fields.out == "Package: ktune-agentd\nArchitecture: riscv64\n");
  const std::string root = tmp.path() + "/root";
  REQUIRE(test::RunProgram("dpkg-deb", {"-x", deb, root}, tmp.path()).exit_code == 0);
  // The agentd the tree built, as packaged (its commit is the riscv64 tree's, configured apart).
  const auto version =
      test::RunProgram("qemu-riscv64", {root + "/usr/bin/agentd", "--version"}, tmp.path());
  CHECK(version.out.starts_with("agentd " KTUNE_VERSION " (commit "));
  CHECK(version.out == test::RunProgram("qemu-riscv64", {agentd, "--version"}, tmp.path()).out);
}

TEST_CASE("qemu-user: push, run and report RVV variants on the riscv64 agentd") {
  const std::string agentd = test::RiscvAgentd();
  if (!std::filesystem::exists(agentd)) {
    MESSAGE("skipped: no riscv64 agentd at " << agentd << " (scripts/build_agent.sh riscv64)");
    return;
  }
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  auto tuned = test::TuneSmallMatmul(root, tmp.path(), 2);
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);

  test::AgentProcess agent(tmp.path() + "/store",
                           {"--exec-wrapper", "qemu-riscv64 -cpu rv64,v=true,vlen=256"},
                           {"qemu-riscv64"}, agentd);
  const std::string address = agent.address().ToString();
  auto status = test::RunKhost({"agent", "status", "--agent", address}, tmp.path());
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  CHECK(Contains(status.out, "cpu:         riscv64"));

  auto pushed = test::RunKhost({"push", "matmul", "--root", root, "--agent", address}, tmp.path());
  REQUIRE_MESSAGE(pushed.exit_code == 0, pushed.err);
  CHECK(Contains(pushed.out, "pushed matmul"));

  auto run = test::RunKhost({"run", "matmul", "--root", root, "--agent", address, "--reps", "2",
                             "--warmup", "0", "--events", "task-clock,instructions"},
                            tmp.path());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(Contains(run.err, "khost run: 4 rows in"));
  CHECK(Contains(run.out, "best: VL256_matmul_"));

  // Every repetition is valid and timed; the counters could not open under qemu-user.
  std::string results;
  for (const auto& e : std::filesystem::directory_iterator(root + "/matmul/run/results")) {
    if (e.path().extension() == ".csv") results = e.path().string();
  }
  auto parsed = ParseResultsCsv(ReadFile(results).value());
  REQUIRE(parsed.ok());
  REQUIRE(parsed->rows.size() == 4);
  for (const RepetitionRow& row : parsed->rows) {
    CHECK(row.valid);
    bool kernel_time = false, instructions = false;
    for (const MeasuredValue& v : row.values) {
      if (v.name == kKernelTime) kernel_time = v.status == ValueStatus::kOk && v.value > 0;
      if (v.name == "instructions") instructions = v.status == ValueStatus::kNotSupported;
    }
    CHECK(kernel_time);
    CHECK(instructions);
  }
  auto report = test::RunKhost({"report", "matmul", "--root", root}, tmp.path());
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  // perf_event_open is ENOSYS under qemu-user: the counters' columns become a line under the
  // table.
  const size_t line = report.out.find("\nnot supported: ");
  REQUIRE_MESSAGE(line != std::string::npos, report.out);
  CHECK(Contains(report.out.substr(line, report.out.find('\n', line + 1) - line), "instructions"));
  CHECK(Contains(report.out, "2/2"));

  // khost roofline runs end to end on it; its numbers are qemu's, and it says so.
  auto roof = test::RunKhost({"roofline", "--agent", address, "--toolchain", "rvv-clang19",
                              "--root", tmp.path() + "/roofline", "--max-size", "16KiB",
                              "--bytes-per-call", "256KiB", "--iterations", "2000", "--reps", "1",
                              "--warmup", "0", "--db", "sqlite:" + tmp.path() + "/t.db"},
                             tmp.path());
  REQUIRE_MESSAGE(roof.exit_code == 0, roof.err);
  CHECK(Contains(roof.out, "roofline of riscv64:"));
  CHECK(Contains(roof.out, "fp64 vector 256 B"));
  CHECK(Contains(roof.out, "note: the board's RISC-V ids are an emulator's"));
}

}  // namespace
}  // namespace ktune
