#include <doctest/doctest.h>

#include <filesystem>

#include "common/fs.h"
#include "host/tune/apply_best.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

const char* const kSpec =
    "kernel: k\nmain: m.c\nparam: A = 1 2 3  # three\nparam: B = 4 5\nconstraint: A < 3\n";

TEST_CASE("--apply-best: the winner into the spec and its constants, only when it fits the spec") {
  test::UnitTempDir dir;
  const std::string path = dir / "k.kspec";
  REQUIRE(WriteFileAtomic(path, kSpec).ok());
  auto target = ReadSpecForBest(path, "");
  REQUIRE_MESSAGE(target.ok(), target.status().message());
  CHECK(target->text == kSpec);

  // A configuration the constraints rule out, and a winner without a value: nothing written.
  CHECK(ApplyBest(*target, {"r1", "k_3_4.elf", {"3", "4"}, "wall 1 ms"}).status().message() ==
        "run r1's winner (A=3 B=4) is not a configuration of " + path +
            " as it is now (its candidates or constraints changed?): nothing written");
  CHECK(ApplyBest(*target, {"r1", "k_2.elf", {"2", ""}, "wall 1 ms"}).status().message() ==
        "run r1's winner k_2.elf has no value of B: were its variants tuned from " + path + "?");
  CHECK(!std::filesystem::exists(dir / "best_constants.c"));
  CHECK(ReadFile(path).value() == kSpec);

  auto line = ApplyBest(*target, {"r1", "k_2_5.elf", {"2", "5"}, "wall 1 ms"});
  REQUIRE_MESSAGE(line.ok(), line.status().message());
  CHECK(*line == "best: A=2 B=5");
  CHECK(ReadFile(path).value() ==
        std::string(kSpec) + "\n# khost tune --apply-best: run r1, k_2_5.elf, wall 1 ms\n" +
            "best: A=2 B=5\n");
  CHECK(ReadFile(dir / "best_constants.c").value().find("const int k_A = 2;") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "best_blk_constants.json"));
  // Read again, the spec is read without its best: line, which the next winner replaces.
  auto again = ReadSpecForBest(path, "");
  REQUIRE(again.ok());
  REQUIRE(ApplyBest(*again, {"r2", "k_1_4.elf", {"1", "4"}, "wall 2 ms"}).ok());
  CHECK(ReadFile(path).value() ==
        std::string(kSpec) + "\n# khost tune --apply-best: run r2, k_1_4.elf, wall 2 ms\n" +
            "best: A=1 B=4\n");
}

}  // namespace
}  // namespace ktune::host
