// The system check (agentd's agent/server/system_check.h): `khost agent status` shows it with its
// warnings, `khost run` says the warnings as the run starts and keeps the check in the run's
// metadata, `khost report` and `analyze` note them under their tables; `khost agent tune-system`
// and its --reset, as root only. agentd reads (and tune-system writes) a fixture tree given by
// --fake-system-root (FAKE: this machine is a VM without cpufreq), and the real / once.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/fs.h"
#include "host/results/results_dir.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

const std::string kCpu = "/sys/devices/system/cpu/";

// A machine of two CPUs with the powersave governor and boost on, nothing isolated, ASLR on.
struct Fixture {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  std::string sys = tmp.path() + "/fake-root";
  Fixture() {
    Put(kCpu + "online", "0-1\n");
    for (const char* cpu : {"cpu0", "cpu1"}) {
      Put(kCpu + cpu + "/cpufreq/scaling_governor", "powersave\n");
      Put(kCpu + cpu + "/cpufreq/scaling_min_freq", "800000\n");
      Put(kCpu + cpu + "/cpufreq/scaling_max_freq", "3600000\n");
      Put(kCpu + cpu + "/cpufreq/scaling_cur_freq", "1200000\n");
    }
    Put(kCpu + "cpufreq/boost", "1\n");
    Put(kCpu + "isolated", "\n");
    Put("/sys/class/thermal/thermal_zone0/type", "cpu-thermal\n");
    Put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
    Put("/proc/sys/kernel/randomize_va_space", "2\n");
    Put(kCpu + "cpu0/cache/index0/level", "1\n");
    Put(kCpu + "cpu0/cache/index0/type", "Data\n");
    Put(kCpu + "cpu0/cache/index0/size", "32K\n");
    Put(kCpu + "cpu0/cache/index1/level", "2\n");
    Put(kCpu + "cpu0/cache/index1/type", "Unified\n");
    Put(kCpu + "cpu0/cache/index1/size", "512K\n");
    Put("/proc/loadavg", "0.10 0.05 0.01 1/100 42\n");
    Put("/proc/stat", "procs_running 1\n");
    test::MakeKernelDir(root, "k", {{"ok.elf", {{"B", 1}}, {}}, {"ok.elf", {{"B", 2}}, {}}});
  }
  void Put(const std::string& path, const std::string& text) {
    REQUIRE(MakeDirs(fs::path(sys + path).parent_path().string()).ok());
    REQUIRE(WriteFileAtomic(sys + path, text).ok());
  }
  // The governors of cpu0 and cpu1, and boost.
  std::string Values() {
    return ReadFile(sys + kCpu + "cpu0/cpufreq/scaling_governor").value() +
           ReadFile(sys + kCpu + "cpu1/cpufreq/scaling_governor").value() +
           ReadFile(sys + kCpu + "cpufreq/boost").value();
  }
  test::CommandResult Khost(const std::vector<std::string>& args) {
    return test::RunKhost(args, tmp.path());
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("the system check: agent status, the warnings of a run, its metadata, its reports") {
  Fixture f;
  test::AgentProcess agent(f.tmp.path() + "/store", {"--fake-system-root", f.sys});
  const std::string at = agent.address().ToString();

  auto status = f.Khost({"agent", "status", "--agent", at});
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  CHECK(status.out.find("system (CPU 0):\n"
                        "  governor:     powersave\n"
                        "  frequency:    min 800 MHz, max 3600 MHz, now 1200 MHz\n"
                        "  boost:        on\n"
                        "  thermal:      cpu-thermal 45.0 C\n"
                        "  isolated:     isolcpus none, nohz_full unknown\n"
                        "  SMT siblings: unknown\n"
                        "  caches:       L1d:32K L2:512K\n"
                        "  ASLR:         2 (on)\n"
                        "  load:         0.1 (1 min) on 2 CPUs, 0 other runnable\n"
                        "warning: CPU 0: governor powersave, not performance") !=
        std::string::npos);
  CHECK(status.out.find("warning: ASLR") == std::string::npos);  // shown above, no threat

  auto run = f.Khost(
      {"run", "k", "--root", f.root, "--agent", at, "--cpu", "1", "--reps", "3", "--warmup", "0"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(Count(run.err, "khost run: warning: CPU 1: governor powersave, not performance") == 1);
  CHECK(Count(run.err, "khost run: warning: CPU 1 is not isolated") == 1);
  CHECK(Count(run.err, "khost run: warning: boost/turbo is on") == 1);
  const std::string results = test::OnlyResults(f.root + "/k/run");
  auto meta = host::ReadRunMeta(host::RunMetaPath(results));
  REQUIRE(meta.ok());
  REQUIRE(meta->system.has_value());
  CHECK(meta->system->cpu == 1);
  CHECK(meta->system->governor == "powersave");
  CHECK(meta->system->boost == true);
  CHECK(meta->system->aslr == 2);
  CHECK_FALSE(meta->system->caches.has_value());  // CPU 1 lists none here

  auto report = f.Khost({"report", "k", "--root", f.root});
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(report.out.find("note: system: CPU 1: governor powersave, not performance") !=
        std::string::npos);
  auto analyzed = f.Khost({"analyze", "k", "--root", f.root, "--no-plots"});
  REQUIRE_MESSAGE(analyzed.exit_code == 0, analyzed.err);
  CHECK(analyzed.out.find("note: system: CPU 1 is not isolated") != std::string::npos);
}

TEST_CASE("the system check of this machine: status shows it, a run keeps it") {
  Fixture f;
  test::AgentProcess agent(f.tmp.path() + "/store");
  const std::string at = agent.address().ToString();
  auto status = f.Khost({"agent", "status", "--agent", at});
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  CHECK(status.out.find("system (CPU 0):\n  governor:") != std::string::npos);
  auto run = f.Khost({"run", "k", "--root", f.root, "--agent", at, "--reps", "1", "--warmup", "0"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(run.err.find("khost run: warning: the run is not pinned to a CPU") != std::string::npos);
  const std::string results = test::OnlyResults(f.root + "/k/run");
  const std::string json = ReadFile(host::RunMetaPath(results)).value();
  CHECK(json.find("\"system\": {") != std::string::npos);
  CHECK(json.find("\"cpu\": -1") != std::string::npos);
}

TEST_CASE("khost agent tune-system: performance and boost off, --reset undoes it; as root only") {
  Fixture f;
  if (::geteuid() == 0) {
    test::AgentProcess agent(f.tmp.path() + "/store", {"--fake-system-root", f.sys});
    const std::string at = agent.address().ToString();
    struct Step {
      std::vector<std::string> args;
      std::string said, values;
    };
    for (const Step& step : std::vector<Step>{
             {{},
              "cpu0 governor: powersave -> performance\ncpu1 governor: powersave -> performance\n"
              "boost: 1 -> 0\n",
              "performance\nperformance\n0\n"},
             {{"--reset"},
              "cpu0 governor: performance -> powersave\ncpu1 governor: performance -> powersave\n"
              "boost: 0 -> 1\n",
              "powersave\npowersave\n1\n"}}) {
      std::vector<std::string> args = {"agent", "tune-system", "--agent", at};
      args.insert(args.end(), step.args.begin(), step.args.end());
      auto r = f.Khost(args);
      REQUIRE_MESSAGE(r.exit_code == 0, r.err);
      CHECK(r.out == step.said);
      CHECK(f.Values() == step.values);
      // Tuned, agent status warns of the governor no more.
      auto status = f.Khost({"agent", "status", "--agent", at});
      CHECK((status.out.find("warning: CPU 0: governor") == std::string::npos) ==
            step.args.empty());
    }
  }
  // An agent that is not root refuses, in one line.
  const std::string store = f.tmp.path() + "/store-nobody";
  fs::create_directories(store);
  std::vector<std::string> wrapper;
  if (::geteuid() == 0) {
    fs::permissions(f.tmp.path(), fs::perms(0755));
    REQUIRE(::chown(store.c_str(), 65534, 65534) == 0);
    wrapper = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  test::AgentProcess nobody(store, {"--fake-system-root", f.sys}, wrapper);
  auto refused = f.Khost({"agent", "tune-system", "--agent", nobody.address().ToString()});
  CHECK(refused.exit_code != 0);
  CHECK(refused.ErrLines() ==
        std::vector<std::string>{"khost agent: tune-system needs agentd running as root"});
  CHECK(f.Values() == "powersave\npowersave\n1\n");
}

TEST_CASE(
    "each round's rows carry the CPU's frequency and the hottest zone; reports say the change") {
  Fixture f;
  test::AgentProcess agent(f.tmp.path() + "/store", {"--fake-system-root", f.sys});
  // Rounds 0.3 s apart: the frequency falls to 800 MHz and the zone heats up after round 0.
  auto khost =
      test::StartKhost({"run", "k", "--root", f.root, "--agent", agent.address().ToString(),
                        "--cpu", "1", "--warmup", "0", "--reps", "4", "--cooldown", "300"},
                       f.tmp.path(), f.tmp.path() + "/khost");
  REQUIRE(test::WaitFor([&] { return fs::exists(f.root + "/k/run/results"); }));
  const std::string results = test::OnlyResults(f.root + "/k/run");
  REQUIRE(test::WaitFor([&] { return test::RowsOf(results).size() >= 2; }));
  f.Put(kCpu + "cpu1/cpufreq/scaling_cur_freq", "800000\n");
  f.Put("/sys/class/thermal/thermal_zone0/temp", "71000\n");
  auto done = khost->Wait();
  REQUIRE_MESSAGE(done.exit_code == 0, done.err);
  std::vector<RepetitionRow> rows = test::RowsOf(results);
  REQUIRE(rows.size() == 8);
  std::sort(rows.begin(), rows.end(), [](const RepetitionRow& a, const RepetitionRow& b) {
    return a.repetition < b.repetition;
  });
  for (const RepetitionRow& row : rows) {
    const MeasuredValue* mhz = row.Find(kCpuFrequency);
    const MeasuredValue* celsius = row.Find(kTemperature);
    REQUIRE(mhz != nullptr);
    REQUIRE(celsius != nullptr);
    CHECK(mhz->unit == "MHz");
    CHECK(celsius->unit == "C");
    if (row.repetition == 0) {  // read before the change
      CHECK(mhz->value == 1200);
      CHECK(celsius->value == 45);
    }
    if (row.repetition == 3) {  // read after it
      CHECK(mhz->value == 800);
      CHECK(celsius->value == 71);
    }
  }
  auto report = f.Khost({"report", "k", "--root", f.root});
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(report.out.find("note: machine: the CPU's frequency ranged from 800 to 1200 MHz (1200 at "
                        "the start, 800 at the end); the hottest thermal zone went from 45 C to "
                        "71 C (71 C at most)") != std::string::npos);
  CHECK(report.out.find(kCpuFrequency) == std::string::npos);  // not a column
}

TEST_CASE("khost run --max-temp waits for the thermal zone to cool before measuring") {
  Fixture f;
  f.Put("/sys/class/thermal/thermal_zone0/temp", "61000\n");  // 61 C, above the 50 asked
  test::AgentProcess agent(f.tmp.path() + "/store", {"--fake-system-root", f.sys});
  const std::string where = agent.address().ToString();
  auto khost = test::StartKhost({"run", "k", "--root", f.root, "--agent", where, "--warmup", "0",
                                 "--reps", "2", "--max-temp", "50"},
                                f.tmp.path(), f.tmp.path() + "/khost");
  // Nothing is measured while the zone is hot; once it reads 45 C, every repetition is.
  REQUIRE(test::WaitFor([&] { return fs::exists(f.root + "/k/run/results"); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::string results = test::OnlyResults(f.root + "/k/run");
  CHECK(test::RowsOf(results).empty());
  const int64_t cooled_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
  f.Put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
  auto done = khost->Wait();
  REQUIRE_MESSAGE(done.exit_code == 0, done.err);
  const auto rows = test::RowsOf(results);
  REQUIRE(rows.size() == 4);
  for (const RepetitionRow& row : rows) CHECK(row.timestamp_ns >= cooled_ns);
  CHECK(host::ReadRunMeta(host::RunMetaPath(results))->max_temp_mc == 50000);

  // An agent without a thermal zone (this VM's real /sys) cannot be watched: refused up front.
  test::AgentProcess plain(f.tmp.path() + "/store-plain");
  if (fs::exists("/sys/class/thermal/thermal_zone0/temp")) return;
  auto refused = f.Khost(
      {"run", "k", "--root", f.root, "--agent", plain.address().ToString(), "--max-temp", "50"});
  CHECK(refused.exit_code != 0);
  CHECK(refused.err.find("--max-temp: agent") != std::string::npos);
  CHECK(refused.err.find("reports no thermal zone") != std::string::npos);
}

}  // namespace
}  // namespace ktune
