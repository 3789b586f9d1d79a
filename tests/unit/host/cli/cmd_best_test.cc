#include "host/cli/cmd_best.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("khost best: the kernel, a board, a shape, how many") {
  auto r = ParseBestArgs(
      {"matmul", "--board", "k1", "--shape", "M=64 N=32", "--top", "3", "--format", "json"});
  REQUIRE(r.ok());
  CHECK(r->kernel == "matmul");
  CHECK(r->board == "k1");
  CHECK(r->shape == Params{{"M", "64"}, {"N", "32"}});
  CHECK(r->top == 3);
  CHECK(r->json);
  CHECK(ParseBestArgs({"matmul"})->shape.empty());
  CHECK(ParseBestArgs({"matmul", "--top", "0"}).status().message() ==
        "--top '0': a number of configurations from 1 to 1000");
  CHECK(ParseBestArgs({"matmul", "--shape", "M"}).status().message().find("--shape 'M'") == 0);
  CHECK_FALSE(ParseBestArgs({}).ok());
}

}  // namespace
}  // namespace ktune::host
