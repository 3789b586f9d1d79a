// The agent's counts against perf's own: the same ELF measured by agentd and by `perf stat -x,`
// (Debian's linux-perf, which the setup installs; its absence fails the test).

#include <doctest/doctest.h>

#include <boost/process.hpp>
#include <cmath>

#include "common/fs.h"
#include "common/strings.h"
#include "host/cli/cmd_run.h"
#include "host/remote/agent_client.h"
#include "host/report/stats.h"
#include "host/results/kernel_dir.h"
#include "protocol/convert.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace bp = boost::process;

// One `perf stat -x, -e task-clock,page-faults` run: {task-clock ns, page-faults}.
std::pair<double, double> PerfStatOnce(const std::string& perf, const std::string& elf,
                                       const std::string& cwd, const std::string& err_path) {
  const int rc = bp::system(perf, "stat", "-x,", "-e", "task-clock,page-faults", elf, "", "40",
                            bp::start_dir = cwd, bp::std_out > bp::null, bp::std_err > err_path);
  REQUIRE(rc == 0);
  double task_clock = NAN, faults = NAN;
  const std::string text = ReadFile(err_path).value();
  for (std::string_view line : Split(text, '\n')) {
    const auto f = Split(line, ',');
    if (f.size() < 3) continue;
    if (f[2] == "task-clock" && f[1] == "msec") task_clock = ParseDouble(f[0]).value() * 1e6;
    if (f[2] == "page-faults") faults = ParseDouble(f[0]).value();
  }
  return {task_clock, faults};
}

TEST_CASE("task-clock and page-faults agree with perf stat for the same ELF") {
  const std::string perf = bp::search_path("perf").string();
  // scripts/setup.sh installs linux-perf; without it this comparison cannot be made.
  REQUIRE_MESSAGE(!perf.empty(), "perf is not installed (Debian package linux-perf)");

  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "k", {{"ok.elf", {{"B", 1}}, {"", "40"}}});
  test::AgentProcess agent(tmp.path() + "/store");
  auto dir = LoadKernelDir(root, "k");
  REQUIRE(dir.ok());
  auto conn = AgentConnection::Connect(agent.address());
  REQUIRE(conn.ok());
  auto pushed = PushBundle(**conn, BuildManifest(*dir).value(), root);
  REQUIRE(pushed.ok());
  auto opts = ParseRunArgs({"k", "--events", "task-clock,page-faults", "--reps", "7"});
  const wire::RunRequest req = MakeRunRequest(*opts, *dir, pushed->bundle_id, "cmp");
  std::vector<double> agent_clock, agent_faults;
  REQUIRE(RunOnAgent(**conn, req, [&](const wire::RepetitionResult& r) {
            RepetitionRow row = RowFromWire(r, req.variants(0));
            agent_clock.push_back(row.Find("task-clock")->value);
            agent_faults.push_back(row.Find("page-faults")->value);
            return Status::Ok();
          }).ok());

  std::vector<double> perf_clock, perf_faults;
  const std::string elf = root + "/" + dir->variants[0].elf_path;
  for (int i = 0; i < 7; ++i) {
    auto [clock, faults] = PerfStatOnce(perf, elf, root, tmp.path() + "/perf.err");
    perf_clock.push_back(clock);
    perf_faults.push_back(faults);
  }
  REQUIRE(Min(perf_clock).has_value());
  REQUIRE(Median(perf_faults).has_value());
  const double a_clock = *Min(agent_clock), p_clock = *Min(perf_clock);
  const double a_faults = *Median(agent_faults), p_faults = *Median(perf_faults);
  MESSAGE("task-clock min of 7: agentd "
          << a_clock / 1e6 << " ms, perf " << p_clock / 1e6 << " ms (medians "
          << *Median(agent_clock) / 1e6 << ", " << *Median(perf_clock) / 1e6
          << "); page-faults median: agentd " << a_faults << ", perf " << p_faults);
  // The ELF spins until its own CPU-time clock passes 40 ms, so both tools must see 40 ms plus
  // the same exec and exit work. On this VM a run now and then takes 2-3 ms more CPU time outside
  // the loop under either tool (seen as 43.6 ms against 41.1 ms medians of 5, either way round):
  // noise only adds, so the minima of 7 runs are compared; 5% (2 ms) is the tolerance.
  CHECK(std::fabs(a_clock - p_clock) <= 0.05 * p_clock);
  // Page faults of a static binary are set by its image and the pages it touches, identical in
  // both; perf's child additionally faults in perf's own exec path before the counter is
  // enabled by exec, which is not counted either. Allow 2 faults of slack for the stack and
  // auxv pages, whose count depends on the environment size (perf passes its own environment).
  CHECK(std::fabs(a_faults - p_faults) <= 2);
}

}  // namespace
}  // namespace ktune::host
