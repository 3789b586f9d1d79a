// agentd's hygiene while it measures (issue 21): no kernel outlives a killed agentd
// (PR_SET_PDEATHSIG, workload.cc), and with --cpu N agentd's own threads stay off CPU N while the
// kernel runs there (agent/measure/affinity.h), but for the measurer, which waits for the kernel
// on its CPU (agent/server/measurer.cc). Real agentd and khost processes, real ELFs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/fs.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

// The processes whose executable lies under `dir`.
std::vector<pid_t> ProcessesUnder(const std::string& dir) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec;
    const fs::path exe = fs::read_symlink(e.path() / "exe", ec);
    if (!ec && exe.string().rfind(dir, 0) == 0) out.push_back(std::stoi(name));
  }
  return out;
}

TEST_CASE("agentd killed while a kernel runs: the kernel does not outlive it (PR_SET_PDEATHSIG)") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work", store = tmp.path() + "/store";
  test::MakeKernelDir(root, "k", {{"hang.elf", {{"B", 0}}, {}}});
  auto agent = std::make_unique<test::AgentProcess>(store);
  auto khost = test::StartKhost({"run", "k", "--root", root, "--agent", agent->address().ToString(),
                                 "--warmup", "0", "--reps", "1", "--timeout", "300"},
                                tmp.path(), tmp.path() + "/khost");
  REQUIRE(test::WaitFor([&] { return !ProcessesUnder(store).empty(); }));
  agent->Kill();
  CHECK(test::WaitFor([&] { return ProcessesUnder(store).empty(); }, 10));
  CHECK(khost->Wait().exit_code != 0);
}

// The CPUs a thread of `pid` may run on, as /proc shows them ("0", "0-1").
std::string CpusAllowed(pid_t pid, const std::string& tid) {
  const Result<std::string> read =
      ReadFile("/proc/" + std::to_string(pid) + "/task/" + tid + "/status");
  if (!read.ok()) return "";
  const std::string& status = *read;
  const size_t at = status.find("Cpus_allowed_list:");
  if (at == std::string::npos) return "";
  const size_t start = status.find_first_not_of(" \t", at + 18);
  return status.substr(start, status.find('\n', start) - start);
}

TEST_CASE("with --cpu 1 agentd's own threads stay off CPU 1 while the kernel runs there") {
  if (::sysconf(_SC_NPROCESSORS_ONLN) != 2) {
    MESSAGE("skipped: the check below is written for 2 CPUs");
    return;
  }
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work", store = tmp.path() + "/store";
  test::MakeKernelDir(root, "k", {{"hang.elf", {{"B", 0}}, {}}});
  test::AgentProcess agent(store);
  auto khost = test::StartKhost({"run", "k", "--root", root, "--agent", agent.address().ToString(),
                                 "--warmup", "0", "--reps", "1", "--timeout", "3", "--cpu", "1"},
                                tmp.path(), tmp.path() + "/khost");
  REQUIRE(test::WaitFor([&] { return !ProcessesUnder(store).empty(); }));
  const pid_t kernel = ProcessesUnder(store).front();
  CHECK(CpusAllowed(kernel, std::to_string(kernel)) == "1");
  // One thread, the measurer, which launches the kernels and sleeps while they run, shares their
  // CPU (as perf stat does under taskset); every other thread is kept off it.
  size_t threads = 0, on_kernel_cpu = 0;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(agent.pid()) + "/task")) {
    const std::string cpus = CpusAllowed(agent.pid(), e.path().filename().string());
    CAPTURE(e.path().filename().string());
    CHECK((cpus == "0" || cpus == "1"));
    if (cpus == "1") ++on_kernel_cpu;
    ++threads;
  }
  CHECK(on_kernel_cpu == 1);
  CHECK(threads >= 2);  // the acceptor's and the measurer's at least
  khost->Wait();        // the kernel's --timeout ends the run
  REQUIRE(test::WaitFor(
      [&] {
        for (const auto& e :
             fs::directory_iterator("/proc/" + std::to_string(agent.pid()) + "/task")) {
          if (CpusAllowed(agent.pid(), e.path().filename().string()) != "0-1") return false;
        }
        return true;
      },
      10));
}

}  // namespace
}  // namespace ktune
