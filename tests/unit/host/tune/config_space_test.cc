// Kernel specs and what khost tune derives from them without building: the spec parser and its
// errors (file:line), shape overrides and argv, the configuration space, test data (values,
// names, both formats) and the host references that give the golden outputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "common/fs.h"
#include "host/results/test_data_files.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/kspec_best.h"
#include "host/tune/references.h"
#include "host/tune/tensors.h"
#include "tests/unit/host/tune/spec_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

TEST_CASE("the space: the grid in order, filtered by constraints over params, constants, shape") {
  KernelSpec s = Parse(kMatmul);
  auto space = EnumerateSpace(s, {});
  REQUIRE(space.ok());
  CHECK(space->grid_size == 6);
  // 4*8=32, 4*16=64, 8*8=64 pass; 8*16=128, 16*8=128, 16*16=256 do not.
  CHECK(space->configs == std::vector<Config>{{4, 8}, {4, 16}, {8, 8}});
  CHECK(space->feasible == 3);

  s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M <= M * GROUP_SIZE_M && " +
            "BLOCK_SIZE_N % 16 == 0\n");
  auto both = EnumerateSpace(s, {});
  REQUIRE(both.ok());
  CHECK(both->configs == std::vector<Config>{{4, 16}});

  s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M > 1000\n");
  CHECK(EnumerateSpace(s, {}).status().message() ==
        "/k/matmul/matmul.kspec: no configuration of 6 satisfies the constraints (lines 9, 17)");
  s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M / (BLOCK_SIZE_N - 8)\n");
  CHECK(EnumerateSpace(s, {}).status().message().rfind(
            "/k/matmul/matmul.kspec:17: constraint BLOCK_SIZE_M / (BLOCK_SIZE_N - 8): ", 0) == 0);

  std::string big = "kernel: k\nmain: m.c\n";
  for (int i = 0; i < 8; ++i) big += "param: P" + std::to_string(i) + " = 1 2 3 4 5 6 7 8\n";
  CHECK(EnumerateSpace(Parse(big), {})
            .status()
            .message()
            .find("the grid has more than 10000000 configurations") != std::string::npos);
}

TEST_CASE("with shapes, the constraints read each shape; a configuration one shape takes is kept") {
  const KernelSpec s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M <= M\n");
  using Shape = std::vector<std::pair<std::string, int64_t>>;
  const Shape m4 = {{"M", 4}, {"N", 3}, {"K", 4}, {"RUN_COUNT", 5}};
  const Shape m8 = {{"M", 8}, {"N", 3}, {"K", 4}, {"RUN_COUNT", 5}};
  CHECK_FALSE(EnumerateSpace(s, {}).ok());  // none at the spec's M=2
  auto small = EnumerateSpace(s, {std::nullopt, 0, {m4}});
  REQUIRE(small.ok());
  CHECK(small->configs == std::vector<Config>{{4, 8}, {4, 16}});
  auto both = EnumerateSpace(s, {std::nullopt, 0, {m4, m8}});
  REQUIRE(both.ok());
  CHECK(both->configs == std::vector<Config>{{4, 8}, {4, 16}, {8, 8}});
  CHECK(Satisfies(s, {8, 8}, m8).value());
  CHECK_FALSE(Satisfies(s, {8, 8}, m4).value());
}

TEST_CASE("a variant's work: the spec's formulas at its configuration and shape") {
  const std::string head = "kernel: k\nmain: m.c\nparam: P = 1 2\nconstant: C = 3\nshape: N=4\n";
  const KernelSpec s = Parse(head + "flops: 2*N*N*P\nbytes: 4*(N + C)\n");
  auto w = WorkOf(s, {2}, {{"N", 8}});
  REQUIRE(w.ok());
  CHECK(w->flops == 256.0);
  CHECK(w->bytes == 44.0);
  // A spec without formulas: no work, and not an error.
  auto none = WorkOf(Parse(head), {1}, {{"N", 4}});
  REQUIRE(none.ok());
  CHECK(none->empty());
  // Only one of the two.
  auto flops_only = WorkOf(Parse(head + "flops: N\n"), {1}, {{"N", 4}});
  REQUIRE(flops_only.ok());
  CHECK(flops_only->flops == 4.0);
  CHECK_FALSE(flops_only->bytes);

  // Values that are not work: one line naming the file, line, formula, configuration and shape.
  CHECK(WorkOf(Parse(head + "flops: N/(P-1)\n"), {1}, {{"N", 4}}).status().message() ==
        "/k/matmul/matmul.kspec:6: flops: N/(P-1) at P=1 N=4: division by zero");
  CHECK(
      WorkOf(Parse(head + "bytes: N-5\n"), {1}, {{"N", 4}}).status().message() ==
      "/k/matmul/matmul.kspec:6: bytes: N-5 at P=1 N=4: negative (-1); work is a count, 0 or more");
}

TEST_CASE("--sample: reproducible, in grid order, unique; all when N covers the space") {
  std::string text = "kernel: k\nmain: m.c\nparam: A = 1 2 3 4 5 6 7 8\nparam: B = 1 2 3 4 5 6\n";
  const KernelSpec s = Parse(text);
  auto a = EnumerateSpace(s, {5, 42});
  auto again = EnumerateSpace(s, {5, 42});
  auto other = EnumerateSpace(s, {5, 43});
  REQUIRE(a.ok());
  REQUIRE(again.ok());
  REQUIRE(other.ok());
  CHECK(a->configs.size() == 5);
  CHECK(a->feasible == 48);
  CHECK(a->configs == again->configs);
  CHECK(a->configs != other->configs);
  CHECK(std::is_sorted(a->configs.begin(), a->configs.end()));  // grid order is lexicographic
  CHECK(std::set<Config>(a->configs.begin(), a->configs.end()).size() == 5);
  // The picks of a seed never change (common/random.h draws the same on every machine).
  CHECK(a->configs == std::vector<Config>{{3, 4}, {3, 5}, {4, 6}, {7, 3}, {8, 6}});
  CHECK(other->configs == std::vector<Config>{{1, 5}, {2, 4}, {4, 5}, {5, 3}, {8, 3}});
  auto all = EnumerateSpace(s, {100, 1});
  REQUIRE(all.ok());
  CHECK(all->configs.size() == 48);
}

}  // namespace
}  // namespace ktune::host
