#include "host/cli/cmd_roofline.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("khost roofline: the agent, toolchain, sweep sizes and measurement options") {
  auto r = ParseRooflineArgs({"--agent", "k1", "--toolchain", "native", "--max-size", "1MiB",
                              "--bytes-per-call", "64MiB", "--iterations", "1000", "--reps", "7",
                              "--format", "json"});
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  CHECK(r->agent == "k1");
  CHECK(r->toolchain == "native");
  CHECK(r->max_bytes == uint64_t{1} << 20);
  CHECK(r->bytes_per_call == uint64_t{64} << 20);
  CHECK(r->flops_iterations == 1000);
  CHECK(r->measure.repetitions == 7);
  CHECK(r->json);
  auto defaults = ParseRooflineArgs({});
  REQUIRE(defaults.ok());
  CHECK(defaults->max_bytes == 0);  // from the board's caches
  CHECK(defaults->toolchain == "rvv-clang19");
  CHECK(ParseRooflineArgs({"--iterations", "0"}).status().message() ==
        "--iterations '0': a number of iterations from 1 to 1099511627776");
  CHECK(ParseRooflineArgs({"--format", "csv"}).status().message() ==
        "--format 'csv': table or json");
}

TEST_CASE("khost roofline --threads: 1 by default, pinned by the microkernels, not with --cpu") {
  CHECK(ParseRooflineArgs({})->threads == 1);
  CHECK(ParseRooflineArgs({"--threads", "8"})->threads == 8);
  CHECK(ParseRooflineArgs({"--threads", "1", "--cpu", "2"})->measure.cpu == 2);
  CHECK(ParseRooflineArgs({"--threads", "0"}).status().message() ==
        "--threads '0': a number of threads from 1 to 4096");
  CHECK(ParseRooflineArgs({"--threads", "4", "--cpu", "1"}).status().message() ==
        "--threads 4 with --cpu 1: the threads are pinned to CPUs of their own; leave --cpu out");
}

TEST_CASE("byte sizes: digits and a binary unit, 4 KiB to 1 TiB, one line naming the option") {
  CHECK(*ParseByteSize("4096", "max-size") == 4096);
  CHECK(*ParseByteSize("512KiB", "max-size") == 512 * 1024);
  CHECK(*ParseByteSize("64MiB", "max-size") == uint64_t{64} << 20);
  CHECK(*ParseByteSize("2GiB", "max-size") == uint64_t{2} << 30);
  const std::string accepted =
      "': a size in bytes, 4096 up to 1TiB, with an optional unit KiB, MiB or GiB";
  for (const char* bad : {"", "MiB", "64MB", "-1", "1024", "2048GiB", "99999999999999", "1.5MiB"}) {
    CHECK(ParseByteSize(bad, "max-size").status().message() ==
          std::string("--max-size '") + bad + accepted);
  }
}

}  // namespace
}  // namespace ktune::host
