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

TEST_CASE("a set: NAME=VALUE pairs apart by spaces, values positive integers") {
  auto s = ParseShapeSet(" M=64  N=8\tK=1 ");
  REQUIRE(s.ok());
  CHECK(*s == std::vector<std::pair<std::string, int64_t>>{{"M", 64}, {"N", 8}, {"K", 1}});
  CHECK(ParseShapeSet("").value().empty());
  CHECK(ParseShapeSet("M=0").status().message() ==
        "M=0: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseShapeSet("M=-4").status().message() ==
        "M=-4: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseShapeSet("M=1.5").status().message() ==
        "M=1.5: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseShapeSet("M=").status().message() ==
        "M=: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseShapeSet("M").status().message() == "M: expected NAME=VALUE");
  CHECK(ParseShapeSet("=4").status().message() == "=4: expected NAME=VALUE");
  CHECK(ParseShapeSet("M=1,N=2").status().message() ==
        "M=1,N=2: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseShapeSet("M=1 M=2").status().message() == "M is given twice");
}

TEST_CASE(
    "a shapes file: a shape per line, comments and blank lines skipped, errors at file:line") {
  auto sets =
      ParseShapesFile("# projections\nM=64 N=64 K=64\n\n  M=128 N=64 K=32  # wide\n", "shapes.txt");
  REQUIRE(sets.ok());
  REQUIRE(sets->size() == 2);
  CHECK((*sets)[0].where == "shapes.txt:2");
  CHECK((*sets)[1].where == "shapes.txt:4");
  CHECK((*sets)[1].values[2] == std::pair<std::string, int64_t>{"K", 32});
  CHECK(ParseShapesFile("M=1 N=1 K=1\nM=x N=1 K=1\n", "f").status().message() ==
        "f:2: M=x: a shape value is an integer from 1 to 2147483647");
  CHECK(ParseShapesFile("", "f").value().empty());
  CHECK(ParseShapesFile("\v\n \f\n", "f").value().empty());  // white space only: no shape
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

TEST_CASE("a variant is in a set's shape when its shape has every NAME=VALUE of the set") {
  const Params shape = {{"M", "64"}, {"N", "8"}, {"K", "16"}};
  CHECK(InShape(shape, {{"M", 64}}));
  CHECK(InShape(shape, {{"K", 16}, {"M", 64}}));
  CHECK(InShape(shape, {}));
  CHECK_FALSE(InShape(shape, {{"M", 64}, {"N", 9}}));
  CHECK_FALSE(InShape(shape, {{"Q", 1}}));
  CHECK_FALSE(InShape({}, {{"M", 64}}));
}

}  // namespace
}  // namespace ktune::host
