// The kernel's clock of a workload (agent/measure/run_clock.h) on real processes: exec to exit,
// within the agent's own start-byte-to-exit time, blind to the processes and threads the workload
// creates.
#include <doctest/doctest.h>

#include "agent/measure/run_clock.h"
#include "agent/measure/workload.h"
#include "tests/integration/harness.h"

namespace ktune::agent {
namespace {

struct Clocked {
  WorkloadResult result;
  std::optional<uint64_t> kernel_wall_ns;
};

// Runs an ELF of tests/elves under a RunClock, drained as it fills when `drain_while_running`.
Clocked RunClocked(const std::string& elf, std::vector<std::string> args,
                   bool drain_while_running = true) {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/" + elf;
  o.args = std::move(args);
  o.timeout_ns = 60'000'000'000;
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  Result<RunClock> clock = RunClock::Open(w->pid());
  REQUIRE_MESSAGE(clock.ok(), clock.status().message());
  if (drain_while_running) w->Watch({clock->poll_fd()}, [&] { clock->Drain(); });
  Clocked c;
  c.result = w->Run();
  clock->Drain();
  c.kernel_wall_ns = clock->wall_ns();
  return c;
}

TEST_CASE("the kernel's clock runs from the workload's exec to its exit") {
  const Clocked c = RunClocked("ok.elf", {"", "30"});
  REQUIRE(c.result.outcome.ToString() == "exit:0");
  REQUIRE(c.kernel_wall_ns.has_value());
  CHECK(*c.kernel_wall_ns >= 30'000'000);  // it spins 30 ms of CPU time
  // The agent's clock also holds the start byte's way to the child and the exit's way back.
  CHECK(*c.kernel_wall_ns <= c.result.wall_ns);
}

TEST_CASE("the kernel's clock ends at the workload's own exit, not its child's") {
  // forker.elf leaves a child sleeping for an hour; Run kills it after the parent exits.
  const Clocked c = RunClocked("forker.elf", {"exit"});
  REQUIRE(c.result.outcome.ToString() == "exit:0");
  REQUIRE(c.kernel_wall_ns.has_value());
  CHECK(*c.kernel_wall_ns < 10'000'000'000);
  CHECK(*c.kernel_wall_ns <= c.result.wall_ns);
}

TEST_CASE("a workload creating more threads than the ring holds keeps its clock when drained") {
  // 400 FORK records of 40 bytes fill the 8 KiB ring twice over.
  const Clocked drained = RunClocked("threads.elf", {"400"});
  REQUIRE(drained.result.outcome.ToString() == "exit:0");
  REQUIRE(drained.kernel_wall_ns.has_value());
  CHECK(*drained.kernel_wall_ns <= drained.result.wall_ns);
  // Not drained until the end, the ring overflows and the exit is lost: no time, so the caller
  // keeps its own (agent/measure/measure.cc).
  const Clocked overflowed = RunClocked("threads.elf", {"400"}, false);
  REQUIRE(overflowed.result.outcome.ToString() == "exit:0");
  CHECK_FALSE(overflowed.kernel_wall_ns.has_value());
}

TEST_CASE("a workload that never execs has no kernel time") {
  const Clocked c = RunClocked("no-such.elf", {});
  CHECK(c.result.outcome.kind == OutcomeKind::kLaunchFailed);
  CHECK_FALSE(c.kernel_wall_ns.has_value());
}

}  // namespace
}  // namespace ktune::agent
