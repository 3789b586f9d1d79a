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

namespace ktune::host {
namespace {

TEST_CASE("test data names parse back; anything else is not one") {
  auto f = ParseTestDataFileName("matrix_64x32_3.bin");
  REQUIRE(f.has_value());
  CHECK(f->rows == 64);
  CHECK(f->cols == 32);
  CHECK(f->index == 3);
  CHECK(f->binary);
  f = ParseTestDataFileName(TestDataFileName(1, 768, 0, false));
  REQUIRE(f.has_value());
  CHECK(f->index == 0);
  CHECK(!f->binary);
  for (const char* other :
       {"matrix_64x32_1.csv", "matrix_64x32.txt", "matrix_64_1.txt", "matrix_x32_1.txt",
        "matrix_64x32_.txt", "matrix_64x32_01.txt", "matrix_-4x32_1.txt", "matrix_64x3a_1.txt",
        "Matrix_64x32_1.txt", "matrix_1_2x3.txt", ".txt", "matrix_99999999999999999999x1_1.txt"}) {
    CAPTURE(other);
    CHECK(!ParseTestDataFileName(other).has_value());
  }
}

}  // namespace
}  // namespace ktune::host
