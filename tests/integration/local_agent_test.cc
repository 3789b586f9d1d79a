// One agentd per store, and the local agent that khost commands given no agent share: real
// agentd and khost processes, commands run at once.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "common/fs.h"
#include "common/results.h"
#include "host/remote/local_agent.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

// Found by the bad-input campaign (issue 33): a second agentd on a store measured alongside the
// first and could evict the bundles its runs held.
TEST_CASE("a second agentd on a store refuses, naming the first's pid") {
  test::TempDir tmp;
  const std::string store = tmp.path() + "/store";
  test::AgentProcess first(store);
  auto second = test::RunProgram(test::BinDir() + "/agentd",
                                 {"--listen", "127.0.0.1:0", "--store", store}, tmp.path());
  CHECK(second.exit_code == 1);
  CHECK(second.err == "agentd: store " + store + " is in use by agentd pid " +
                          std::to_string(first.pid()) +
                          " (one agentd per store; --store names another)\n");
  CHECK(host::AgentHoldingStore(store) == first.pid());
  // The first one still serves; once it is gone, the store is free again.
  first.Kill();
  CHECK(host::AgentHoldingStore(store) == 0);
  test::AgentProcess third(store);
  CHECK(host::AgentHoldingStore(store) == third.pid());
}

// Found by the bad-input campaign (issue 33): three khost runs given no agent started three
// agentds on one store, whose kernels ran at the same time (medians 14.3 ms -> 20-24 ms).
TEST_CASE("khost commands given no agent share one local agent; their runs queue on it") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  constexpr int kRuns = 3;
  for (int k = 0; k < kRuns; ++k) {
    test::MakeKernelDir(root, "k" + std::to_string(k), {{"spin.elf", {{"B", k}}, {"150"}}});
  }
  // Each run is long enough (4 x 150 ms) for the others to start while it measures.
  std::vector<std::unique_ptr<test::Program>> runs;
  for (int k = 0; k < kRuns; ++k) {
    runs.push_back(test::StartKhost({"run", "k" + std::to_string(k), "--root", root, "--reps", "4",
                                     "--warmup", "0"},
                                    tmp.path(), tmp.path() + "/khost" + std::to_string(k)));
  }
  size_t started = 0, joined = 0;
  for (auto& run : runs) {
    const test::CommandResult r = run->Wait();
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    started += r.err.find("started a local agentd on 127.0.0.1:") != std::string::npos;
    joined += r.err.find("using the local agentd another khost started") != std::string::npos;
  }
  // However the three met (a later one may start a new agent after the others finished), no two
  // agents ran at once: no two runs' repetitions overlap in time.
  CHECK(started >= 1);
  CHECK(started + joined == kRuns);
  std::vector<std::pair<int64_t, int64_t>> spans;  // each run's first and last repetition start
  for (int k = 0; k < kRuns; ++k) {
    const auto rows = test::RowsOf(test::OnlyResults(root + "/k" + std::to_string(k) + "/run"));
    REQUIRE(rows.size() == 4);
    int64_t first = rows.front().timestamp_ns, last = first;
    for (const RepetitionRow& row : rows) {
      first = std::min(first, row.timestamp_ns);
      last = std::max(last, row.timestamp_ns);
    }
    spans.emplace_back(first, last);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first > spans[i - 1].second);
  // The last command to finish stopped the agent.
  const std::string cache = tmp.path() + "/ktune/local-agent";
  const std::string store = ::geteuid() == 0 && !fs::exists(cache) ? "/var/lib/ktune/local-agent"
                                                                   : cache;
  CHECK(host::AgentHoldingStore(store) == 0);
  CHECK_FALSE(fs::exists(store + ".address"));
}

}  // namespace
}  // namespace ktune
