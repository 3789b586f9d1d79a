// One agentd per store, and the local agent that khost commands given no agent share: real
// agentd and khost processes, commands run at once.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
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

// How many agentd processes serve `store` now: those whose command line names it, less the
// kernels an agentd has cloned and not yet exec'd (they share its memory, so its command line).
size_t AgentsOn(const std::string& store) {
  std::map<long, long> parent;  // of each process whose command line names the store
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const Result<std::string> cmdline = ReadFile(e.path().string() + "/cmdline");
    const Result<std::string> stat = ReadFile(e.path().string() + "/stat");
    if (!cmdline.ok() || !stat.ok() || cmdline->find("agentd") == std::string::npos ||
        cmdline->find(std::string("--store") + '\0' + store + '\0') == std::string::npos) {
      continue;
    }
    // "pid (comm) state ppid ...": the comm may hold anything, so from its last ')'.
    const std::string after = stat->substr(stat->rfind(')') + 2);
    parent[std::stol(e.path().filename().string())] = std::stol(after.substr(2));
  }
  size_t n = 0;
  for (const auto& [pid, ppid] : parent) n += parent.count(ppid) == 0;
  return n;
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
  const std::string store = tmp.path() + "/cache/ktune/local-agent";  // XDG_CACHE_HOME, test::
  std::atomic<bool> done{false};
  std::atomic<size_t> most_at_once{0};
  std::thread watch([&] {
    while (!done) {
      most_at_once = std::max<size_t>(most_at_once, AgentsOn(store));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  // Each run is long enough (4 x 150 ms) for the others to start while it measures.
  std::vector<std::unique_ptr<test::Program>> runs;
  for (int k = 0; k < kRuns; ++k) {
    runs.push_back(test::StartKhost(
        {"run", "k" + std::to_string(k), "--root", root, "--reps", "4", "--warmup", "0"},
        tmp.path(), tmp.path() + "/khost" + std::to_string(k)));
  }
  size_t started = 0, joined = 0;
  for (auto& run : runs) {
    const test::CommandResult r = run->Wait();
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    started += r.err.find("started a local agentd on 127.0.0.1:") != std::string::npos;
    joined += r.err.find("using the local agentd another khost started") != std::string::npos;
  }
  done = true;
  watch.join();
  CHECK(most_at_once.load() == 1);
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
  CHECK(AgentsOn(store) == 0);
  CHECK(host::AgentHoldingStore(store) == 0);
  CHECK_FALSE(fs::exists(store + ".address"));
}

// Found in review (issue 33): khost joined, and the last command stopped, whatever agentd held
// the local store, one started by hand too.
TEST_CASE("an agentd started by hand on the local agent's store is neither joined nor stopped") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "k", {{"ok.elf", {{"B", 0}}, {}}});
  const std::string store = tmp.path() + "/cache/ktune/local-agent";
  test::AgentProcess by_hand(store);
  auto r = test::RunKhost({"run", "k", "--root", root, "--reps", "1", "--warmup", "0"}, tmp.path());
  CHECK(r.exit_code == 1);
  CHECK(r.err == "khost run: agentd pid " + std::to_string(by_hand.pid()) +
                     " holds the local agent's store " + store +
                     ", but no khost command knows its address (started by hand, or by a khost "
                     "that died as it started it): stop it, or give --agent\n");
  CHECK(host::AgentHoldingStore(store) == by_hand.pid());
  auto named = test::RunKhost({"run", "k", "--root", root, "--reps", "1", "--warmup", "0",
                               "--agent", by_hand.address().ToString()},
                              tmp.path());
  CHECK_MESSAGE(named.exit_code == 0, named.err);
}

}  // namespace
}  // namespace ktune
