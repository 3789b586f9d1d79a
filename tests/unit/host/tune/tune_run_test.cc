#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "common/fs.h"
#include "host/tune/tune_run.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("test data: written when changed, the other format and an earlier numbering removed") {
  test::UnitTempDir dir;
  const std::string data = dir / "test_data";
  REQUIRE(MakeDirs(data).ok());
  // An earlier khost tune numbered A [4, 8] _0 and B [8, 4] _1; now they are _1 and _2. A .bin of
  // a tensor now written as text goes too; a file of no tensor stays.
  for (const char* old :
       {"matrix_4x8_0.txt", "matrix_8x4_1.txt", "matrix_8x4_2.bin", "notes.txt"}) {
    REQUIRE(WriteFileAtomic(data + "/" + old, "old").ok());
  }
  TestData now;
  now.files = {{"matrix_4x8_1.txt", "A"}, {"matrix_8x4_2.txt", "B"}};
  REQUIRE(WriteTestData(now, data).ok());
  std::set<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(data)) {
    left.insert(e.path().filename().string());
  }
  CHECK(left == std::set<std::string>{"matrix_4x8_1.txt", "matrix_8x4_2.txt", "notes.txt"});
  CHECK(ReadFile(data + "/matrix_8x4_2.txt").value() == "B");
  // Without an earlier numbering, what is written now stays as it is.
  REQUIRE(WriteTestData(now, data).ok());
  CHECK(ReadFile(data + "/matrix_4x8_1.txt").value() == "A");
}

}  // namespace
}  // namespace ktune::host
