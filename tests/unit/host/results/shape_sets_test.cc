// Shape sets as users write them: a set, a shapes file and its errors (file:line), whether a
// variant is at a set's shape, and khost run's keeping of the variants at the sets.
#include "host/results/shape_sets.h"

#include <doctest/doctest.h>

#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

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

TEST_CASE("a variant is in a set's shape when its shape has every NAME=VALUE of the set") {
  const Params shape = {{"M", "64"}, {"N", "8"}, {"K", "16"}};
  CHECK(InShape(shape, {{"M", 64}}));
  CHECK(InShape(shape, {{"K", 16}, {"M", 64}}));
  CHECK(InShape(shape, {}));
  CHECK_FALSE(InShape(shape, {{"M", 64}, {"N", 9}}));
  CHECK_FALSE(InShape(shape, {{"Q", 1}}));
  CHECK_FALSE(InShape({}, {{"M", 64}}));
}

TEST_CASE("the variants at the sets are kept; a set no variant runs at is an error naming it") {
  const auto variant = [](const std::string& name, const Params& shape) {
    KernelVariant v;
    v.name = name;
    v.shape = shape;
    return v;
  };
  const std::vector<KernelVariant> all = {variant("a", {{"M", "64"}, {"N", "8"}}),
                                          variant("b", {{"M", "128"}, {"N", "8"}}),
                                          variant("c", {{"M", "64"}, {"N", "16"}})};
  std::vector<KernelVariant> kept = all;
  REQUIRE(KeepVariantsAt({{{{"M", 64}}, "--shape M=64"}}, "k", &kept).ok());
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].name == "a");
  CHECK(kept[1].name == "c");
  kept = all;
  REQUIRE(KeepVariantsAt({{{{"N", 8}}, "s.txt:1"}, {{{"N", 16}}, "s.txt:2"}}, "k", &kept).ok());
  CHECK(kept.size() == 3);
  kept = all;
  CHECK(
      KeepVariantsAt({{{{"M", 64}}, "s.txt:1"}, {{{"M", 32}}, "s.txt:2"}}, "k", &kept).message() ==
      "s.txt:2: no variant of k runs at that shape (khost tune --shapes builds for it)");
}

TEST_CASE("--shapes FILE: a file that cannot be read or holds no set is an error naming it") {
  test::UnitTempDir dir;
  const std::string empty = dir / "empty.txt";
  REQUIRE(WriteFileAtomic(empty, "# nothing\n\n").ok());
  CHECK(ReadShapesFile(empty).status().message() == "--shapes " + empty + " holds no shape");
  CHECK(ReadShapesFile(dir / "none.txt").status().message().starts_with("--shapes: "));
  const std::string two = dir / "two.txt";
  REQUIRE(WriteFileAtomic(two, "M=1\nM=2 N=3\n").ok());
  auto sets = ReadShapesFile(two);
  REQUIRE(sets.ok());
  CHECK(sets->size() == 2);
}

}  // namespace
}  // namespace ktune::host
