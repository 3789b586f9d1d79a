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
#include "host/cli/command.h"
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
