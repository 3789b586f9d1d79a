#include <doctest/doctest.h>

#include "host/measure/sweep.h"

namespace ktune::host {
namespace {

TEST_CASE("--agents: names in order, no empty ones, no repeats") {
  auto three = ParseAgentList("k1,k2,127.0.0.1:7178");
  REQUIRE(three.ok());
  CHECK(*three == std::vector<std::string>{"k1", "k2", "127.0.0.1:7178"});
  CHECK(ParseAgentList("k1,,k2").status().message().find("empty name") != std::string::npos);
  CHECK(ParseAgentList("k1,k1").status().message().find("k1 is listed twice") != std::string::npos);
  CHECK_FALSE(ParseAgentList(",").ok());
}

TEST_CASE("agents of one CPU fingerprint sweep together; others only with --allow-mixed") {
  const std::string x60 = "riscv64:0x710-0x8000000058000001-0x0:Spacemit(R) X60";
  const std::string u74 = "riscv64:0x489-0x8000000000000007-0x0:SiFive U74";
  CHECK(CheckFingerprints({{"k1", x60}, {"k2", x60}}, false).ok());
  const Status mixed = CheckFingerprints({{"k1", x60}, {"v1", u74}, {"k2", x60}}, false);
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.message().find("2 kinds of CPU") != std::string::npos);
  CHECK(mixed.message().find("k1, k2: " + x60) != std::string::npos);
  CHECK(mixed.message().find("v1: " + u74) != std::string::npos);
  CHECK(mixed.message().find("--allow-mixed") != std::string::npos);
  CHECK(CheckFingerprints({{"k1", x60}, {"v1", u74}}, true).ok());
}

TEST_CASE("shards: one under the run's id for one agent, about four per agent otherwise") {
  const auto one = PlanShards("r", 5, 1);
  REQUIRE(one.size() == 1);
  CHECK(one[0].id == "r");
  CHECK(one[0].variants == std::vector<uint32_t>{0, 1, 2, 3, 4});
  CHECK(one[0].state == "pending");
  const auto two = PlanShards("r", 32, 2);  // 8 shards of 4
  REQUIRE(two.size() == 8);
  CHECK(two[0].id == "r_0");
  CHECK(two[7].id == "r_7");
  CHECK(two[7].variants == std::vector<uint32_t>{28, 29, 30, 31});
  const auto few = PlanShards("r", 3, 2);  // fewer variants than shards: one each
  REQUIRE(few.size() == 3);
  CHECK(few[2].variants == std::vector<uint32_t>{2});
  const auto uneven = PlanShards("r", 9, 2);  // 2 per shard, the last shorter
  REQUIRE(uneven.size() == 5);
  CHECK(uneven[3].variants == std::vector<uint32_t>{6, 7});
  CHECK(uneven[4].variants == std::vector<uint32_t>{8});
  CHECK(PlanShards("r", 0, 3).empty());
  CHECK(ShardRunId("20261122T031500.123Z-3fa2c1", 12) == "20261122T031500.123Z-3fa2c1_12");
  CHECK(RunOfShard("20261122T031500.123Z-3fa2c1_12") == "20261122T031500.123Z-3fa2c1");
  CHECK(RunOfShard("20261122T031500.123Z-3fa2c1") == "20261122T031500.123Z-3fa2c1");
  CHECK(RunOfShard("my_run") == "my_run");
}

RepetitionRow RowOf(const std::string& run_id, uint32_t variant, uint32_t rep) {
  RepetitionRow r;
  r.run_id = run_id;
  r.variant_index = variant;
  r.repetition = rep;
  return r;
}

TEST_CASE("a dropped shard's unfinished variants: those without every row of the plan") {
  const RunMeta::Shard shard{"r_1", {4, 5, 6}, "k1", "measuring"};
  StreamTally none;
  CHECK(Unfinished(shard, none) == std::vector<uint32_t>{4, 5, 6});  // no plan arrived yet
  // Stream indices are the shard's own: 0 is variant 4.
  StreamTally some;
  some.rows_per_variant = 3;
  some.rows = {{0, 3}, {1, 2}};
  CHECK(Unfinished(shard, some) == std::vector<uint32_t>{5, 6});
  // The same from a results file: only the shard's own rows count.
  const std::vector<RepetitionRow> rows = {RowOf("r_1", 4, 0), RowOf("r_1", 4, 1),
                                           RowOf("r_1", 4, 2), RowOf("r_1", 5, 0),
                                           RowOf("r_3", 5, 1), RowOf("r_3", 5, 2)};
  const StreamTally file = TallyOf(shard, rows, 3);
  CHECK(file.rows_per_variant == 3);
  CHECK(file.rows.at(0) == 3);
  CHECK(file.rows.at(1) == 1);
  CHECK(Unfinished(shard, file) == std::vector<uint32_t>{5, 6});
}

TEST_CASE(
    "--resume of a sweep: each shard resumed, fetched or moved by whether its agent is back") {
  const std::vector<RunMeta::Shard> shards = {
      {"r_0", {0, 1}, "k1", "done"},      {"r_1", {2, 3}, "k1", "measuring"},
      {"r_2", {4, 5}, "k2", "measuring"}, {"r_3", {6}, "k2", "moved"},
      {"r_4", {7}, "k3", "moved"},        {"r_5", {8}, "", "pending"},
      {"r_6", {9}, "k3", "measuring"}};
  // k2 is not back: of r_2 variant 4 arrived whole (2 rows a variant), 5 did not; r_6's did.
  const std::vector<RepetitionRow> rows = {RowOf("r_2", 4, 0), RowOf("r_2", 4, 1),
                                           RowOf("r_2", 5, 0), RowOf("r_6", 9, 0),
                                           RowOf("r_6", 9, 1)};
  ResumePlan plan = PlanResume(shards, {"k1", "k3"}, rows, 2, "r");
  REQUIRE(plan.shards.size() == 8);
  CHECK(plan.shards[2].state == "moved");
  CHECK(plan.shards[6].state == "measuring");  // k3 is back: resumed there
  CHECK(plan.shards[7].id == "r_7");
  CHECK(plan.shards[7].variants == std::vector<uint32_t>{5});
  CHECK(plan.shards[7].state == "pending");
  CHECK(plan.shards[7].agent.empty());
  REQUIRE(plan.pinned.size() == 2);
  CHECK(plan.pinned["k1"].size() == 1);
  CHECK(plan.pinned["k1"][0].shard == 1);
  CHECK(plan.pinned["k1"][0].resume);
  // k3's moved shard is fetched (its journal merged), then its measuring one resumed.
  REQUIRE(plan.pinned["k3"].size() == 2);
  CHECK(plan.pinned["k3"][0].shard == 4);
  CHECK_FALSE(plan.pinned["k3"][0].resume);
  CHECK(plan.pinned["k3"][1].shard == 6);
  CHECK(plan.pinned["k3"][1].resume);
  CHECK(plan.notes == std::vector<std::string>{
                          "khost run: agent k2 is not back: 1 variants of shard r_2 go to the "
                          "others"});
  // A shard of an agent not back that arrived whole is done; no new shard for it.
  const ResumePlan whole = PlanResume({{"r_6", {9}, "k3", "measuring"}}, {}, rows, 2, "r");
  REQUIRE(whole.shards.size() == 1);
  CHECK(whole.shards[0].state == "done");
  CHECK(whole.pinned.empty());
  CHECK(whole.notes.size() == 1);
}

TEST_CASE("a shard's request: the run's settings, the shard's variants and id") {
  wire::RunRequest all;
  all.set_run_id("r");
  all.set_bundle_id("b");
  all.set_repetitions(7);
  for (const char* name : {"a.elf", "b.elf", "c.elf"}) all.add_variants()->set_name(name);
  const wire::RunRequest cut = ShardRequest(all, {"r_2", {2, 0}, "", "pending"});
  CHECK(cut.run_id() == "r_2");
  CHECK(cut.bundle_id() == "b");
  CHECK(cut.repetitions() == 7);
  REQUIRE(cut.variants_size() == 2);
  CHECK(cut.variants(0).name() == "c.elf");
  CHECK(cut.variants(1).name() == "a.elf");
}

TEST_CASE("a sweep's shards read back must fit its request: ids, variants, states") {
  wire::RunRequest request;
  for (const char* name : {"a.elf", "b.elf", "c.elf"}) request.add_variants()->set_name(name);
  RunMeta meta;
  meta.run_id = "r";
  const auto check = [&](std::vector<RunMeta::Shard> shards) {
    meta.shards = std::move(shards);
    return CheckSweepShards(meta, request, "k/run/results/r.json");
  };
  CHECK(check({}).ok());
  CHECK(check({{"r", {0, 1, 2}, "k1", "measuring"}}).ok());
  CHECK(
      check(
          {{"r_0", {0, 1}, "k1", "moved"}, {"r_1", {2}, "k2", "done"}, {"r_2", {1}, "", "pending"}})
          .ok());
  // Shard r_0 was all reused, so left out; a single shard's moved variants went to r_1.
  CHECK(check({{"r_1", {0}, "k1", "merged"}, {"r_2", {1}, "k2", "done"}}).ok());
  CHECK(check({{"r", {0, 1}, "k1", "moved"}, {"r_1", {1}, "", "pending"}}).ok());

  // A variant past the request's: ShardRequest would read past its variants.
  const Status past = check({{"r_0", {0, 3}, "k1", "pending"}});
  REQUIRE_FALSE(past.ok());
  CHECK(past.message() ==
        "k/run/results/r.json: shard r_0 lists variant 3, but the run's request has 3 variants; "
        "the files are not one run's");
  const Status twice = check({{"r_0", {0}, "", "pending"}, {"r_0", {1}, "", "pending"}});
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.message() == "k/run/results/r.json: two shards are named r_0");
  for (const char* id : {"../r_0", "r_", "r_1x", "q_1", "r1"}) {
    const Status named = check({{id, {0}, "", "pending"}});
    REQUIRE_FALSE(named.ok());
    CHECK(named.message() == "k/run/results/r.json: a shard is named '" + std::string(id) +
                                 "', not r or r_<n>; the file is not one khost wrote");
  }
  // The file's text is printed escaped: the refusal is one line.
  const Status newline = check({{"r_0\nr_1", {0}, "", "pending"}});
  REQUIRE_FALSE(newline.ok());
  CHECK(newline.message() ==
        "k/run/results/r.json: a shard is named 'r_0\\nr_1', not r or r_<n>; the file is not one "
        "khost wrote");
  CHECK(check({{"r_0", {0}, "", "done\n"}}).message().find("'done\\n'") != std::string::npos);
  const Status state = check({{"r_0", {0}, "", "lost"}});
  REQUIRE_FALSE(state.ok());
  CHECK(state.message().find("'lost' (pending, measuring, done, moved or merged)") !=
        std::string::npos);
}

TEST_CASE("a shard added takes the next id no shard has: ids may skip a shard all reused") {
  CHECK(NextShardId("r", {}) == "r_0");
  CHECK(NextShardId("r", {{"r", {0}, "", "moved"}}) == "r_1");
  CHECK(NextShardId("r", {{"r_0", {0}, "", "done"}, {"r_1", {1}, "", "done"}}) == "r_2");
  // r_0's variants were all reused: two shards, the next number (2) is taken.
  CHECK(NextShardId("r", {{"r_1", {0}, "", "done"}, {"r_2", {1}, "", "done"}}) == "r_3");
  // --resume moving both, with no agent back: r_3, then r_4, never a second r_2.
  const ResumePlan plan = PlanResume(
      {{"r_1", {0}, "k1", "measuring"}, {"r_2", {1}, "k2", "measuring"}}, {}, {}, 1, "r");
  REQUIRE(plan.shards.size() == 4);
  CHECK(plan.shards[2].id == "r_3");
  CHECK(plan.shards[3].id == "r_4");
}

}  // namespace
}  // namespace ktune::host
