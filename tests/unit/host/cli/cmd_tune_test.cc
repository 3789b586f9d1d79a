// The pure parts of khost tune: toolchain profiles, Triton input (blk_constants.json, IR
// retargeting), variant planning (names, constants, commands, configs.json) and its options.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "common/events.h"
#include "common/fs.h"
#include "host/cli/cmd_tune.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/tune/kspec.h"
#include "host/tune/toolchain.h"
#include "host/tune/triton.h"
#include "host/tune/variant_build.h"
#include "host/util/subprocess.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("tune options: defaults and refusals") {
  auto d = ParseTuneArgs({"matmul"});
  REQUIRE(d.ok());
  CHECK(d->toolchain == "rvv-clang19");
  CHECK(d->jobs == 0);
  CHECK(!d->sample);
  CHECK(!d->check);
  CHECK(d->kernels_dir == KTUNE_SOURCE_DIR "/kernels");
  auto o = ParseTuneArgs({"k.kspec", "-j", "3", "--sample", "5", "--seed", "9", "--shape", "M=4",
                          "--shape", "N=8", "--check", "--toolchain", "native"});
  REQUIRE(o.ok());
  CHECK(o->jobs == 3);
  CHECK(*o->sample == 5);
  CHECK(o->seed == 9);
  CHECK(o->shape == std::vector<std::string>{"M=4", "N=8"});
  CHECK(o->check);
  CHECK(!ParseTuneArgs({"matmul", "--sample", "0"}).ok());
  CHECK(!ParseTuneArgs({"matmul", "--check-timeout", "0"}).ok());
  CHECK(!ParseTuneArgs({"matmul", "--triton", "d", "--sample", "2"}).ok());
  CHECK(!ParseTuneArgs({}).ok());
}

// Found by the bad-input campaign (issue 33): -j 100000 was taken, cxxopts' "Argument '-1' failed
// to parse" named no option, and ranges were misstated ("between 0 and 1e6" refusing 0).
TEST_CASE("every numeric option's error names the option, the value and what it takes") {
  const auto error = [](std::vector<std::string> args) {
    args.insert(args.begin(), "matmul");
    return ParseTuneArgs(args).status().message();
  };
  CHECK(error({"-j", "100000"}) == "--jobs '100000': a whole number of builds from 0 to 1024");
  CHECK(error({"-j", "-1"}) == "--jobs '-1': a whole number of builds from 0 to 1024");
  CHECK(error({"--jobs", "two"}) == "--jobs 'two': a whole number of builds from 0 to 1024");
  CHECK(error({"--sample", "0"}) ==
        "--sample '0': a whole number of configurations from 1 to 10000000");
  CHECK(error({"--seed", "-1"}) == "--seed '-1': a whole number from 0 to 18446744073709551615");
  CHECK(error({"--check-timeout", "0"}) ==
        "--check-timeout '0': a number of seconds above 0 and at most 1000000");
  CHECK(error({"--strategy", "random", "--budget", "5", "--batch", "0"}) ==
        "--batch '0': a whole number of configurations from 1 to 10000");
  CHECK(error({"--strategy", "random", "--budget-time", "-3"}) ==
        "--budget-time '-3': a number of seconds above 0 and at most 31536000");
  CHECK(error({"--strategy", "random", "--budget", "5", "--cooldown", "99999999999"}) ==
        "--cooldown '99999999999': a number of milliseconds from 0 to 3600000");
  CHECK(error({"--strategy", "random", "--budget", "5", "--cpu", "-2"}) ==
        "--cpu '-2': a CPU number, or -1 for none, from -1 to 8191");
  CHECK(error({"--strategy", "random", "--budget", "5", "--timeout", "nan"}) ==
        "--timeout 'nan': a number of seconds above 0 and at most 604800");
  CHECK(ParseTuneArgs({"matmul", "-j", "1024"})->jobs == 1024);
}

TEST_CASE("tune --apply-best options") {
  auto t = ParseTuneArgs({"matmul", "--apply-best", "--run", "r1"});
  REQUIRE(t.ok());
  CHECK(t->apply_best);
  CHECK(t->run_id == "r1");
  CHECK(ParseTuneArgs({"matmul", "--run", "r1"}).status().message() ==
        "--run goes with --apply-best");
}

}  // namespace
}  // namespace ktune::host

namespace ktune::host {
namespace {

TEST_CASE("--apply-best --from-db takes the tuning database's best, not a run's") {
  auto r = ParseTuneArgs({"matmul", "--apply-best", "--from-db", "--db", "x.db"});
  REQUIRE(r.ok());
  CHECK(r->from_db);
  CHECK(r->db == "x.db");
  CHECK(ParseTuneArgs({"matmul", "--from-db"}).status().message() ==
        "--from-db goes with --apply-best");
  CHECK(ParseTuneArgs({"matmul", "--apply-best", "--from-db", "--run", "r"}).status().message() ==
        "--from-db takes every run in the database; --run takes one");
  CHECK(ParseTuneArgs({"matmul", "--apply-best", "--db", "x.db"}).status().message() ==
        "--db goes with --strategy");
}

}  // namespace
}  // namespace ktune::host
