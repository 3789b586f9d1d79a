// The order of a run's repetitions (agentd's agent/measure/schedule.h): interleaved rounds by
// default, their seed kept in the run and given back by --seed; --order sequential as agentd
// measured before rounds; rounds over passes (agentd --fake-counter-budget, a FAKE budget: this
// machine has no PMU) and over a sweep's shards. Real agentd and khost, real ELFs.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "host/results/results_dir.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // variant, pass, repetition

// The run's rows as measured: the results file keeps them in the journal's order.
std::vector<Key> Measured(const std::vector<RepetitionRow>& rows) {
  std::vector<Key> out;
  for (const RepetitionRow& r : rows) out.push_back({r.variant_index, r.pass, r.repetition});
  return out;
}

// True when the rows come in rounds: the first `per_round` rows are repetition 0 of each
// (variant, pass) once, the next repetition 1, and so on.
bool InRounds(const std::vector<Key>& keys, size_t per_round) {
  if (per_round == 0 || keys.size() % per_round != 0) return false;
  for (size_t start = 0; start < keys.size(); start += per_round) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (size_t i = start; i < start + per_round; ++i) {
      const auto [v, p, rep] = keys[i];
      if (rep != start / per_round || !seen.insert({v, p}).second) return false;
    }
  }
  return true;
}

struct Bench {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  explicit Bench(size_t variants) {
    std::vector<test::TestVariant> v;
    for (size_t i = 0; i < variants; ++i) v.push_back({"ok.elf", {{"B", int(i)}}, {}});
    test::MakeKernelDir(root, "k", v);
  }
  // khost run with `extra`; the run's rows and meta, newest run first removed after.
  std::pair<std::vector<RepetitionRow>, RunMeta> Run(const test::AgentProcess& agent,
                                                     std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "run",      "k", "--root", root, "--agent", agent.address().ToString(),
        "--warmup", "0", "--fresh"};  // every run measured, its order observed
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = test::RunKhost(args, tmp.path());
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const std::string results = test::OnlyResults(root + "/k/run");
    auto meta = ReadRunMeta(RunMetaPath(results));
    REQUIRE(meta.ok());
    auto rows = test::RowsOf(results);
    fs::remove(results);
    fs::remove(RunMetaPath(results));
    return {rows, *meta};
  }
};

TEST_CASE("khost run: interleaved rounds by default, the seed kept; --seed repeats the order") {
  Bench b(4);
  test::AgentProcess agent(b.tmp.path() + "/store");
  auto [rows, meta] = b.Run(agent, {"--reps", "5"});
  const std::vector<Key> first = Measured(rows);
  REQUIRE(first.size() == 20);
  CHECK(InRounds(first, 4));
  CHECK(meta.order == "interleaved");
  // Not all rounds in one order: a drift would then favour whichever variant runs first.
  std::set<std::vector<uint32_t>> orders;
  for (size_t start = 0; start < 20; start += 4) {
    std::vector<uint32_t> order;
    for (size_t i = start; i < start + 4; ++i) order.push_back(std::get<0>(first[i]));
    orders.insert(order);
  }
  CHECK(orders.size() > 1);
  // The rows' timestamps follow the order they were measured in.
  for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i - 1].timestamp_ns <= rows[i].timestamp_ns);

  auto [again, meta_again] = b.Run(agent, {"--reps", "5", "--seed", std::to_string(meta.seed)});
  CHECK(Measured(again) == first);
  CHECK(meta_again.seed == meta.seed);
  auto [other, meta_other] = b.Run(agent, {"--reps", "5", "--seed", std::to_string(meta.seed + 1)});
  CHECK(InRounds(Measured(other), 4));
  CHECK(Measured(other) != first);
}

TEST_CASE("khost run --order sequential: every repetition of a variant, then the next") {
  Bench b(3);
  test::AgentProcess agent(b.tmp.path() + "/store");
  auto [rows, meta] = b.Run(agent, {"--reps", "2", "--order", "sequential"});
  const std::vector<Key> want = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 0, 1}, {2, 0, 0}, {2, 0, 1}};
  CHECK(Measured(rows) == want);
  CHECK(meta.order == "sequential");
}

TEST_CASE("interleaved rounds run over passes, and over the shards of a sweep") {
  Bench b(3);
  test::AgentProcess agent(b.tmp.path() + "/store", {"--fake-counter-budget", "2"});
  auto [rows, meta] =
      b.Run(agent, {"--reps", "3", "--events", "task-clock,page-faults,context-switches"});
  REQUIRE(meta.passes.size() == 2);
  CHECK(InRounds(Measured(rows), 3 * 2));  // each round: every variant in every pass once

  test::AgentProcess a(b.tmp.path() + "/store-a"), c(b.tmp.path() + "/store-c");
  auto r = test::RunKhost({"run", "k", "--root", b.root, "--warmup", "0", "--reps", "3", "--agents",
                           a.address().ToString() + "," + c.address().ToString()},
                          b.tmp.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto swept = test::RowsOf(test::OnlyResults(b.root + "/k/run"));
  CHECK(swept.size() == 9);
  // Each shard, a run of its own, measured in rounds of its own variants.
  std::map<std::string, std::vector<Key>> per_shard;
  for (const RepetitionRow& row : swept) {
    per_shard[row.run_id].push_back({row.variant_index, row.pass, row.repetition});
  }
  for (const auto& [shard, keys] : per_shard) {
    CAPTURE(shard);
    std::set<uint32_t> variants;
    for (const Key& k : keys) variants.insert(std::get<0>(k));
    CHECK(InRounds(keys, variants.size()));
  }
}

}  // namespace
}  // namespace ktune::host
