// Sampling on real workloads: the sampler's rings, attribution to the kernel's symbol in static
// and position-independent executables, and khost run --record end to end. cpu-clock samples
// without a PMU; a hardware event that cannot sample here must not stop the run.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "agent/measure/perf_counters.h"
#include "agent/measure/sampler.h"
#include "agent/measure/workload.h"
#include "common/fs.h"
#include "host/results/samples.h"
#include "tests/integration/harness.h"

namespace ktune::agent {
namespace {
namespace fs = std::filesystem;
using host::EventSamples;
using host::Symbolize;

Profile SampleSpin(const std::string& elf, std::vector<MeasuredValue>* counts) {
  WorkloadOptions o;
  o.path = test::ElvesDir() + "/" + elf;
  o.args = {"60"};
  auto w = Workload::Prepare(o);
  REQUIRE(w.ok());
  const EventSpec cpu_clock = EventCatalog::Generic().Parse("cpu-clock:u").value();
  Sampler sampler = Sampler::Open({cpu_clock}, w->pid(), {0, 2000, false});
  w->Watch(sampler.poll_fds(), [&] { sampler.Drain(); });
  WorkloadResult r = w->Run([&] { *counts = sampler.ReadCounts(); });
  REQUIRE(r.outcome.ToString() == "exit:0");
  return sampler.TakeProfile();
}

double KernelShare(const std::string& elf, const Profile& p) {
  const auto v = Symbolize({{0, 0, 0, p}}, {{0, {elf, elf}}}, test::ElvesDir(), "spin_kernel");
  REQUIRE(v.size() == 1);
  REQUIRE(v[0].events.size() == 1);
  const EventSamples& e = v[0].events[0];
  REQUIRE(e.kernel_period.has_value());
  return static_cast<double>(*e.kernel_period) / static_cast<double>(e.period);
}

TEST_CASE("the sampler's samples land in the kernel's function, static and PIE alike") {
  for (const char* elf : {"spin.elf", "spin_pie.elf"}) {
    CAPTURE(elf);
    std::vector<MeasuredValue> counts;
    const Profile p = SampleSpin(elf, &counts);
    CHECK(p.unsupported.empty());
    CHECK(p.samples >= 30);  // 60 ms at 2 kHz is about 120
    CHECK(p.lost == 0);
    bool mapped = false;
    for (const Mapping& m : p.mappings) mapped = mapped || m.file.ends_with(elf);
    CHECK(mapped);
    CHECK(KernelShare(elf, p) > 0.5);
    REQUIRE(counts.size() == 1);
    CHECK(counts[0].status == ValueStatus::kOk);
    CHECK(counts[0].value >= 60e6);  // cpu-clock counts ns
    CHECK(counts[0].running_ns == counts[0].enabled_ns);
  }
}

TEST_CASE("khost run --record: samples beside the results, reports, and unsupported events") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  fs::create_directories(root + "/spin/run/bin");
  fs::copy_file(test::ElvesDir() + "/spin.elf", root + "/spin/run/bin/a.elf");
  // The disassembly, as the seed kept it next to each ELF.
  REQUIRE(
      std::system(("objdump -d " + root + "/spin/run/bin/a.elf > " + root + "/spin/run/bin/a.elf.s")
                      .c_str()) == 0);
  std::ofstream(root + "/spin/run/configs.json")
      << R"({"variants":[{"B":1,"elf_path":"spin/run/bin/a.elf","asm_path":"spin/run/bin/a.elf.s",)"
      << R"("args":["40"]}],"perf_files":{"stat":"spin/run/perf_stats.csv"}})";
  test::AgentProcess agent(tmp.path() + "/store");
  auto r = test::RunKhost({"run", "spin", "--root", root, "--agent", agent.address().ToString(),
                           "--reps", "2", "--warmup", "0", "--events", "task-clock", "--record",
                           "cpu-clock:u,cycles:u", "--freq", "2000"},
                          tmp.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const EventSpec cycles = EventCatalog::Generic().Parse("cycles:u").value();
  const bool pmu = ProbeEvent(cycles).empty();
  CHECK((r.err.find("sampling cycles:u: not supported") != std::string::npos) == !pmu);
  auto samples = test::RunKhost({"report", "spin", "--root", root, "--samples"}, tmp.path());
  CHECK(samples.exit_code == 0);
  CHECK(samples.out.find("spin_kernel") != std::string::npos);
  auto perf_stats = ReadFile(root + "/spin/run/perf_stats.csv");
  REQUIRE(perf_stats.ok());
  CHECK(perf_stats->find("cpu-clock:u (spin_kernel period)") != std::string::npos);
  auto annotated =
      test::RunKhost({"report", "spin", "--root", root, "--annotate", "a.elf"}, tmp.path());
  CHECK(annotated.exit_code == 0);
  CHECK(annotated.out.find("<spin_kernel>:") != std::string::npos);
  CHECK(annotated.out.find("% |") != std::string::npos);
  // The run's rows: two counting repetitions and the sampling one.
  for (const auto& e : fs::directory_iterator(root + "/spin/run/results")) {
    if (e.path().extension() != ".csv") continue;
    auto parsed = ParseResultsCsv(ReadFile(e.path().string()).value());
    REQUIRE(parsed.ok());
    CHECK(parsed->rows.size() == 3);
    CHECK(parsed->rows.back().Find("cpu-clock:u") != nullptr);
  }
  auto no_samples =
      test::RunKhost({"run", "spin", "--root", root, "--agent", agent.address().ToString(),
                      "--reps", "1", "--warmup", "0", "--events", "task-clock"},
                     tmp.path());
  REQUIRE(no_samples.exit_code == 0);
  auto refused = test::RunKhost({"report", "spin", "--root", root, "--samples"}, tmp.path());
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("sampled nothing") != std::string::npos);
}

}  // namespace
}  // namespace ktune::agent
