#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "common/events.h"
#include "common/fs.h"
#include "host/cli/cmd_run.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("run options: defaults, conversions and refusals") {
  auto d = ParseRunArgs({"matmul"});
  REQUIRE(d.ok());
  CHECK(d->kernel == "matmul");
  CHECK(d->root == ".");
  CHECK(d->events == std::vector<std::string>{"default"});  // the core's default group
  CHECK(d->repetitions == 5);
  CHECK(d->warmup == 1);
  CHECK(d->timeout_ms == 60000);
  CHECK(d->cpu == -1);

  auto o = ParseRunArgs({"matmul", "--events", "cycles:u,page-faults", "--reps", "3", "--warmup",
                         "0", "--timeout", "0.5", "--cpu", "1", "--root", "/x"});
  REQUIRE(o.ok());
  CHECK(o->events == std::vector<std::string>{"cycles:u", "page-faults"});
  CHECK(o->repetitions == 3);
  CHECK(o->warmup == 0);
  CHECK(o->timeout_ms == 500);
  CHECK(o->cpu == 1);
  CHECK(o->root == "/x");

  CHECK(ParseRunArgs({}).status().message().find("missing <kernel>") != std::string::npos);
  // Names are the agent's to resolve; here only the list's form counts.
  CHECK(ParseRunArgs({"k", "--events", "cylces"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--events", "cycles,,x"}).ok());
  CHECK(ParseRunArgs({"k", "--cpu-model", "spacemit/x60"})->cpu_model == "spacemit/x60");
  // The board's own id is resolved here: the agent receives the table.
  CHECK(ParseRunArgs({"k", "--cpu-model", "0x710-0x8000000058000001-0x0"})->cpu_model ==
        "spacemit/x60");
  CHECK(ParseRunArgs({"k", "--cpu-model", "acme/z1"})
            .status()
            .message()
            .find("no event table for CPU model 'acme/z1'") == 0);
  CHECK_FALSE(ParseRunArgs({"k", "--events", "cycles,cycles"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--reps", "0"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--reps", "x"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--timeout", "-1"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--cpu", "-2"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "--bogus"}).ok());
  CHECK_FALSE(ParseRunArgs({"k", "extra"}).ok());
}

TEST_CASE("run --reps auto: its options, their defaults, and bad input") {
  auto d = ParseRunArgs({"k", "--reps", "auto"});
  REQUIRE(d.ok());
  REQUIRE(d->adaptive.has_value());
  CHECK(d->adaptive->min_reps == 4);
  CHECK(d->adaptive->max_reps == 30);
  CHECK(d->adaptive->target_ci == doctest::Approx(0.02));
  CHECK(d->repetitions == 30);  // the cap
  CHECK(d->max_time_ms == 0);
  CHECK_FALSE(ParseRunArgs({"k"})->adaptive.has_value());

  auto o = ParseRunArgs({"k", "--reps", "auto", "--min-reps", "8", "--max-reps", "40",
                         "--target-ci", "0.5", "--max-time", "90", "--cooldown", "250"});
  REQUIRE(o.ok());
  CHECK(o->adaptive->min_reps == 8);
  CHECK(o->adaptive->max_reps == 40);
  CHECK(o->adaptive->target_ci == doctest::Approx(0.005));
  CHECK(o->max_time_ms == 90000);
  CHECK(o->cooldown_ms == 250);
  auto req = MakeRunRequest(*o, KernelDir{}, "b", "r");
  CHECK(req.repetitions() == 40);
  CHECK(req.adaptive().min_reps() == 8);
  CHECK(req.adaptive().target_ci() == doctest::Approx(0.005));
  CHECK(req.adaptive().max_time_ms() == 90000);
  CHECK(req.cooldown_ms() == 250);
  CHECK_FALSE(MakeRunRequest(*ParseRunArgs({"k"}), KernelDir{}, "b", "r").has_adaptive());

  const auto error = [](std::vector<std::string> args) {
    return ParseRunArgs(args).status().message();
  };
  CHECK(error({"k", "--reps", "auto", "--min-reps", "10", "--max-reps", "8"}) ==
        "--max-reps '8': a whole number of rounds (at least --min-reps) from 10 to 100000");
  CHECK(error({"k", "--reps", "auto", "--min-reps", "3"}) ==
        "--min-reps '3': a whole number of rounds from 4 to 100000");
  CHECK(error({"k", "--reps", "auto", "--target-ci", "0"}) ==
        "--target-ci '0': a percentage above 0 and at most 50");
  CHECK(error({"k", "--reps", "auto", "--target-ci", "100"}) ==
        "--target-ci '100': a percentage above 0 and at most 50");
  CHECK(error({"k", "--reps", "auto", "--max-time", "0"}) ==
        "--max-time '0': a number of seconds above 0 and at most 2592000");
  CHECK(error({"k", "--cooldown", "-1"}) ==
        "--cooldown '-1': a number of milliseconds from 0 to 3600000");
  CHECK(error({"k", "--max-reps", "9"}) == "--max-reps goes with --reps auto");
  CHECK(error({"k", "--max-temp", "0"}) ==
        "--max-temp '0': degrees Celsius above 0 and at most 200");
  CHECK(ParseRunArgs({"k", "--max-temp", "72.5"})->max_temp_mc == 72500);
  CHECK(MakeRunRequest(*ParseRunArgs({"k", "--max-temp", "72.5"}), KernelDir{}, "b", "r")
            .max_temp_mc() == 72500);
  CHECK(error({"k", "--reps", "autox"}) ==
        "--reps 'autox': auto, or a whole number of repetitions from 1 to 100000");
  CHECK(error({"k", "--reps", "auto", "--order", "sequential"}) ==
        "--reps auto measures in interleaved rounds; it cannot go with --order sequential");
  CHECK(error({"k", "--reps", "auto", "--agents", "a,b"}) ==
        "--reps auto races the variants of one agent; it cannot go with --agents");
  CHECK(error({"k", "--resume", "--cooldown", "5"}) ==
        "--resume measures the run as it was asked; --cooldown cannot change it");
}

TEST_CASE("run --resume measures the run as it was asked: measurement options are refused") {
  auto newest = ParseRunArgs({"k", "--resume"});
  REQUIRE(newest.ok());
  CHECK(newest->resume);
  CHECK(newest->run_id.empty());
  auto named = ParseRunArgs({"k", "--resume", "--run", "r1", "--agent", "h:1", "--root", "/x"});
  REQUIRE(named.ok());
  CHECK(named->resume);
  CHECK(named->run_id == "r1");
  CHECK(named->agent == "h:1");
  CHECK(named->root == "/x");
  CHECK_FALSE(ParseRunArgs({"k"})->resume);
  const std::vector<Args> changes = {
      {"--events", "cycles"}, {"--reps", "3"},        {"--warmup", "0"},
      {"--timeout", "1"},     {"--cpu", "0"},         {"--cpu-model", "sifive/u74"},
      {"--multiplex"},        {"--record", "cycles"}, {"--period", "100"},
      {"--freq", "10"},       {"--callchain"},        {"--order", "sequential"},
      {"--seed", "1"},        {"--shape", "M=8"},     {"--shapes", "f"}};
  for (const Args& change : changes) {
    Args args = {"k", "--resume"};
    args.insert(args.end(), change.begin(), change.end());
    auto r = ParseRunArgs(args);
    CAPTURE(change[0]);
    CHECK(r.status().code() == ErrorCode::kInvalidArgument);
    CHECK(r.status().message().find(change[0] + " cannot change it") != std::string::npos);
  }
  auto alone = ParseRunArgs({"k", "--run", "r1"});
  CHECK(alone.status().code() == ErrorCode::kInvalidArgument);
  CHECK(alone.status().message() == "--run goes with --resume");
}

TEST_CASE("run --shape and --shapes: the sets kept as given, a malformed one refused") {
  auto r = ParseRunArgs({"k", "--shape", "M=8 N=4", "--shape", "K=2", "--shapes", "s.txt"});
  REQUIRE(r.ok());
  CHECK(r->shape == std::vector<std::string>{"M=8 N=4", "K=2"});
  CHECK(r->shapes_file == "s.txt");
  CHECK(ParseRunArgs({"k", "--shape", "M=0"}).status().message() ==
        "--shape M=0: M=0: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseRunArgs({"k", "--shape", " "}).status().message() ==
        "--shape ' ': expected NAME=VALUE");
}

TEST_CASE("run --order and --seed: interleaved by default, the seed drawn when not given") {
  auto d = ParseRunArgs({"k"});
  REQUIRE(d.ok());
  CHECK(d->order == wire::RUN_ORDER_INTERLEAVED);
  CHECK_FALSE(d->seed.has_value());
  auto s = ParseRunArgs({"k", "--order", "sequential", "--seed", "18446744073709551615"});
  REQUIRE(s.ok());
  CHECK(s->order == wire::RUN_ORDER_SEQUENTIAL);
  CHECK(s->seed == UINT64_MAX);
  CHECK(ParseRunArgs({"k", "--order", "random"}).status().message() ==
        "--order must be interleaved or sequential, not 'random'");
  for (const char* bad : {"-1", "x", "18446744073709551616", ""}) {
    CAPTURE(bad);
    CHECK(ParseRunArgs({"k", "--seed", bad}).status().message() ==
          std::string("--seed '") + bad + "': a whole number from 0 to 18446744073709551615");
  }
  KernelDir dir;
  dir.kernel = "k";
  const wire::RunRequest req = MakeRunRequest(*s, dir, "bundle", "run");
  CHECK(req.order() == wire::RUN_ORDER_SEQUENTIAL);
  CHECK(req.seed() == UINT64_MAX);
}

TEST_CASE("the run request carries every variant and the measurement settings") {
  auto opts = ParseRunArgs({"k", "--events", "task-clock", "--reps", "2", "--cpu", "0"});
  REQUIRE(opts.ok());
  KernelDir dir;
  dir.kernel = "k";
  dir.variants = {{"a.elf",
                   "k/run/bin/a.elf",
                   {"8x8x8x1"},
                   {{"BLOCK_SIZE_M", "4"}},
                   "",
                   {{"M", "8"}},
                   "k/run/test_data/M=8"},
                  {"b.elf", "k/run/bin/b.elf", {}, {}, ""}};
  const wire::RunRequest req = MakeRunRequest(*opts, dir, "bundle", "run");
  CHECK(req.run_id() == "run");
  CHECK(req.bundle_id() == "bundle");
  REQUIRE(req.variants_size() == 2);
  CHECK(req.variants(0).elf_path() == "k/run/bin/a.elf");
  CHECK(req.variants(0).args(0) == "8x8x8x1");
  CHECK(req.variants(0).params(0).name() == "BLOCK_SIZE_M");
  REQUIRE(req.variants(0).shape_size() == 1);
  CHECK(req.variants(0).shape(0).value() == "8");
  CHECK(req.variants(0).test_data() == "k/run/test_data/M=8");
  CHECK(req.variants(1).shape_size() == 0);
  CHECK(req.variants(1).test_data().empty());
  CHECK(req.events_size() == 1);
  CHECK(req.repetitions() == 2);
  CHECK(req.timeout_ms() == 60000);
  CHECK(req.cpu() == 0);
}

}  // namespace
}  // namespace ktune::host

namespace ktune::host {
namespace {

TEST_CASE("--reuse-age takes a whole number and a unit; --fresh reuses nothing") {
  CHECK(ParseRunArgs({"k"})->reuse_age_s == kDefaultReuseAgeS);
  CHECK(ParseRunArgs({"k", "--reuse-age", "90"})->reuse_age_s == 90);
  CHECK(ParseRunArgs({"k", "--reuse-age", "30m"})->reuse_age_s == 1800);
  CHECK(ParseRunArgs({"k", "--reuse-age", "7d"})->reuse_age_s == 7 * 86400);
  CHECK(ParseRunArgs({"k", "--reuse-age", "0s"})->reuse_age_s == 0);
  CHECK_FALSE(ParseRunArgs({"k", "--fresh"})->reuse_age_s);
  CHECK(ParseRunArgs({"k", "--reuse-age", "1w"}).status().message() ==
        "--reuse-age '1w': a whole number of seconds, or of minutes, hours or days (90s, 30m, "
        "24h, 7d), at most 10 years");
  CHECK(ParseRunArgs({"k", "--fresh", "--reuse-age", "1h"}).status().message() ==
        "--fresh and --reuse-age are alternatives");
  CHECK(ParseRunArgs({"k", "--resume", "--fresh"}).status().message() ==
        "--resume measures the run as it was asked; --fresh cannot change it");
}

}  // namespace
}  // namespace ktune::host
