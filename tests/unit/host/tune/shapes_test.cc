// Problem shapes: a set, a shapes file and its errors (file:line), and the shapes a tune measures
// from the --shape values and the file.
#include "host/tune/shapes.h"

#include <doctest/doctest.h>

#include "tests/unit/host/tune/spec_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

std::string ResolveError(const std::vector<std::string>& args, const std::string& file = "") {
  auto sets = ParseShapesFile(file, "s.txt");
  REQUIRE(sets.ok());
  auto shapes = ResolveShapes(Spec(), args, *sets);
  REQUIRE_FALSE(shapes.ok());
  return shapes.status().message();
}

TEST_CASE("the problem dimensions are the shape names the tensors use, in the shape's order") {
  CHECK(ProblemDimensions(Spec()) == std::vector<std::string>{"M", "N", "K"});
}

TEST_CASE("no set: the spec's shape; a set of fewer dimensions changes every shape") {
  auto one = ResolveShapes(Spec(), {}, {});
  REQUIRE(one.ok());
  CHECK(*one == std::vector<Shape>{{{"M", 2}, {"N", 3}, {"K", 4}}});
  // The --shape M=40 --shape N=24 of before: one shape.
  auto changed = ResolveShapes(Spec(), {"M=40", "N=24"}, {});
  REQUIRE(changed.ok());
  CHECK(*changed == std::vector<Shape>{{{"M", 40}, {"N", 24}, {"K", 4}}});
}

TEST_CASE("sets giving every dimension are shapes of their own, from --shape and the file") {
  auto sets = ParseShapesFile("M=8 N=8 K=8\nM=16 N=8 K=2\n", "s.txt");
  REQUIRE(sets.ok());
  auto shapes = ResolveShapes(Spec(), {"M=1 N=1 K=1", "K=5"}, *sets);
  REQUIRE(shapes.ok());
  // The file's in order, then --shape's; K=5 changes none of them (each gives K).
  CHECK(*shapes == std::vector<Shape>{{{"M", 8}, {"N", 8}, {"K", 8}},
                                      {{"M", 16}, {"N", 8}, {"K", 2}},
                                      {{"M", 1}, {"N", 1}, {"K", 1}}});
  CHECK(ShapeLabel(ShapeParams((*shapes)[0])) == "M=8 N=8 K=8");
  CHECK(ShapeDirName(ShapeParams((*shapes)[1])) == "M=16,N=8,K=2");
  CHECK(FormatParams(ShapeParams((*shapes)[2])) == "M=1;N=1;K=1");
}

TEST_CASE("bad shapes are one error naming where: missing dimension, duplicate, unknown name") {
  CHECK(ResolveError({}, "M=1 N=2 K=3\nM=4 N=5\n") ==
        "s.txt:2: K not given (a shape gives M, N, K, the dimensions of the spec's tensors)");
  CHECK(ResolveError({}, "M=1 N=2 K=3\n# again\nK=3 N=2 M=1\n") ==
        "s.txt:3: M=1 N=2 K=3 is the shape of s.txt:1 again");
  CHECK(ResolveError({"M=1 N=2 K=3"}, "M=1 N=2 K=3\n") ==
        "--shape M=1 N=2 K=3: M=1 N=2 K=3 is the shape of s.txt:1 again");
  CHECK(ResolveError({}, "M=1 N=2 K=3 Q=4\n") == "s.txt:1: /k/matmul/matmul.kspec has no shape Q");
  CHECK(ResolveError({"Q=1"}) == "--shape Q=1: /k/matmul/matmul.kspec has no shape Q");
  CHECK(ResolveError({"M=0"}) ==
        "--shape M=0: M=0: a shape value is an integer from 1 to 2147483647");
  CHECK(ResolveError({" "}) == "--shape ' ': expected NAME=VALUE");
}

}  // namespace
}  // namespace ktune::host
