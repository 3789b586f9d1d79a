// The pure parts of khost tune: toolchain profiles, Triton input (blk_constants.json, IR
// retargeting), variant planning (names, constants, commands, configs.json) and its options.
#include <doctest/doctest.h>

#include "common/fs.h"
#include "host/cli/command.h"
#include "host/results/kernel_dir.h"
#include "host/tune/kspec.h"
#include "host/tune/toolchain.h"
#include "host/tune/triton.h"
#include "host/tune/variant_build.h"
#include "host/util/subprocess.h"

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

}  // namespace
}  // namespace ktune::host
