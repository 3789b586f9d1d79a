// The workload launcher against real processes.
#include <doctest/doctest.h>
#include <signal.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "agent/measure/workload.h"
#include "common/fs.h"
#include "common/strings.h"
#include "tests/integration/harness.h"

namespace ktune::agent {
namespace {

WorkloadResult RunElf(const std::string& elf, std::vector<std::string> args = {},
                      uint64_t timeout_ms = 10000, const std::string& cwd = "") {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/" + elf;
  o.args = std::move(args);
  o.cwd = cwd;
  o.timeout_ns = timeout_ms * 1000000;
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  return w->Run();
}

// True when `pid` is gone or a zombie: it no longer runs.
bool NotRunningNow(int pid) {
  auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return true;
  const size_t close = stat->rfind(')');
  return close != std::string::npos && stat->substr(close + 2, 1) == "Z";
}

// kill() returns before its target is dead: waits (up to 10 s, for loaded machines) until `pid`
// no longer runs.
bool NotRunning(int pid) {
  for (int i = 0; i < 1000; ++i) {
    if (NotRunningNow(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST_CASE("a correct workload exits 0 and its output is captured") {
  WorkloadResult r = RunElf("ok.elf", {"", "2"});
  CHECK(r.outcome.ToString() == "exit:0");
  CHECK(r.output.find("out OK") != std::string::npos);
  CHECK(r.wall_ns > 0);
  CHECK(r.start_unix_ns > 0);
}

TEST_CASE("a crash is reported with its signal") {
  WorkloadResult r = RunElf("segv.elf");
  CHECK(r.outcome.kind == OutcomeKind::kSignaled);
  CHECK(r.outcome.code == SIGSEGV);
  CHECK(r.output.find("about to crash") != std::string::npos);
}

TEST_CASE("a hang is killed at the timeout") {
  WorkloadResult r = RunElf("hang.elf", {}, 200);
  CHECK(r.outcome.kind == OutcomeKind::kTimedOut);
  CHECK(r.wall_ns >= 200000000u);
}

TEST_CASE("the whole process group goes, after a timeout and after a normal exit") {
  for (const char* mode : {"hang", "exit"}) {
    WorkloadResult r = RunElf("forker.elf", {mode}, 300);
    auto pos = r.output.find("child ");
    REQUIRE(pos != std::string::npos);
    const int child =
        ParseInt(Trim(r.output.substr(pos + 6, r.output.find('\n', pos) - pos - 6))).value();
    CHECK_MESSAGE(NotRunning(child), std::string(mode));
  }
}

TEST_CASE("a missing executable is a launch failure naming the file") {
  WorkloadOptions o;
  o.path = "/nonexistent/kernel.elf";
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  WorkloadResult r = w->Run();
  CHECK(r.outcome.kind == OutcomeKind::kLaunchFailed);
  CHECK(r.launch_error.find("/nonexistent/kernel.elf") != std::string::npos);
  CHECK(r.launch_error.find("No such file") != std::string::npos);
}

TEST_CASE("the working directory is the one asked for") {
  test::TempDir dir;
  std::ofstream(dir.path() + "/data.txt") << "2 3\n";
  WorkloadResult r = RunElf("ok.elf", {"data.txt", "1"}, 10000, dir.path());
  CHECK(r.outcome.ToString() == "exit:0");
  CHECK(r.output.find("read 2x3 from data.txt") != std::string::npos);
  WorkloadOptions bad;
  bad.path = test::ElvesDir() + "/ok.elf";
  bad.cwd = dir.path() + "/missing";
  WorkloadResult r2 = Workload::Prepare(bad).value().Run();
  CHECK(r2.outcome.kind == OutcomeKind::kLaunchFailed);
  CHECK(r2.launch_error.find("chdir") != std::string::npos);
}

TEST_CASE("output is bounded: head and tail are kept, the rest counted") {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/flood.elf";
  o.args = {"8"};
  o.output_head_bytes = 64 << 10;
  o.output_tail_bytes = 4 << 10;
  WorkloadResult r = Workload::Prepare(o).value().Run();
  CHECK(r.outcome.ToString() == "exit:0");
  CHECK(r.output_bytes == 8u * 1024 * 1024 + std::string("Running C Kernel Time: 0.25 s\n").size());
  CHECK(r.output.size() < (64 << 10) + (4 << 10) + 100);
  CHECK(r.output.find("bytes of output dropped") != std::string::npos);
  CHECK(r.output.find("Running C Kernel Time: 0.25 s") != std::string::npos);
}

TEST_CASE("the workload inherits no fd, ignored signal or signal mask of the agent") {
  const int leaked = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  REQUIRE(leaked > 2);
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &saved);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  WorkloadResult r = RunElf("probe.elf", {"inherited"});
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  ::sigaction(SIGPIPE, &saved, nullptr);
  ::close(leaked);
  CHECK(r.output.find("fds above 2: 0\n") != std::string::npos);
  CHECK(r.output.find("SIGPIPE ignored: 0\n") != std::string::npos);
  CHECK(r.output.find("blocked signals: 0\n") != std::string::npos);
}

TEST_CASE("a descendant that leaves the process group does not hold the run") {
  // It writes for 8 s; once the workload exited its output is read for kDrainAfterExitNs only.
  const auto t0 = std::chrono::steady_clock::now();
  WorkloadResult r = RunElf("probe.elf", {"escape"}, 5000);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.outcome.ToString() == "exit:0");
  CHECK_MESSAGE(seconds < 4.0, seconds);
}

TEST_CASE("every byte of output reaches the observer, beyond what is kept") {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/probe.elf";
  o.args = {"late-notok"};
  o.output_head_bytes = 4096;
  o.output_tail_bytes = 1024;
  uint64_t seen = 0;
  bool saw_not_ok = false;
  std::string carry;
  o.on_output = [&](std::string_view chunk) {
    seen += chunk.size();
    const std::string joined = carry + std::string(chunk);
    saw_not_ok = saw_not_ok || joined.find("out NOT OK") != std::string::npos;
    carry = joined.substr(joined.size() > 16 ? joined.size() - 16 : 0);
  };
  WorkloadResult r = Workload::Prepare(o).value().Run();
  CHECK(seen == r.output_bytes);
  CHECK(saw_not_ok);
  CHECK(r.output.find("out NOT OK") == std::string::npos);  // not in the kept head or tail
}

TEST_CASE("pinning restricts the workload to one CPU") {
  WorkloadOptions o;
  o.path = "/bin/grep";
  o.args = {"Cpus_allowed_list", "/proc/self/status"};
  o.cpu = 0;
  WorkloadResult r = Workload::Prepare(o).value().Run();
  CHECK(r.output.find("Cpus_allowed_list:\t0\n") != std::string::npos);
}

TEST_CASE("pinned, a kernel that floods its output is read in full and runs to its end") {
  // The thread waiting for a pinned kernel reads its output only every kPinnedOutputPeriodNs:
  // 8 MiB is several pipes' worth, so the kernel waits for reads and must still get them all.
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/flood.elf";
  o.args = {"8"};
  o.cpu = 0;
  o.timeout_ns = 60'000'000'000;  // a pipe never read would hold the kernel: fail, do not hang
  uint64_t seen = 0;
  o.on_output = [&](std::string_view chunk) { seen += chunk.size(); };
  WorkloadResult r = Workload::Prepare(o).value().Run();
  CHECK(r.outcome.ToString() == "exit:0");
  CHECK(r.output_bytes == 8u * 1024 * 1024 + std::string("Running C Kernel Time: 0.25 s\n").size());
  CHECK(seen == r.output_bytes);
  CHECK(r.output.find("Running C Kernel Time: 0.25 s") != std::string::npos);
}

TEST_CASE("the canceller stops a running workload") {
  auto canceller = Canceller::Create();
  REQUIRE(canceller.ok());
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/hang.elf";
  o.canceller = &*canceller;
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    canceller->Cancel();
  });
  WorkloadResult r = w->Run();
  stopper.join();
  CHECK(r.cancelled);
  CHECK(canceller->cancelled());
}

TEST_CASE("a workload that is never started is killed and reaped") {
  int pid;
  {
    WorkloadOptions o;
    o.path = test::ElvesDir() + "/ok.elf";
    auto w = Workload::Prepare(o);
    REQUIRE(w.ok());
    pid = w->pid();
  }
  CHECK(NotRunning(pid));
}

}  // namespace
}  // namespace ktune::agent
