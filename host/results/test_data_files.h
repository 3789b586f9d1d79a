// The names of a kernel's test data files, as the seed names and numbers them:
//
//   <kernel>/run/test_data/matrix_<rows>x<cols>_<index>.txt   (or .bin, ktune's binary format)
//
// <rows>x<cols> is the tensor's own shape (an N-D tensor flattened to the product of its leading
// dims x its last dim, a 1-D one 1 x n). <index> counts from 1: the spec's inputs in order, then
// its outputs (matmul: A _1, B _2, golden C _3), the numbering of the seed's KEEP_TEST_DATA
// builds and of its getDB(kernel, shape, index) reader.
//
// khost tune numbered from 0 before (A _0, B _1, C _2); such a directory read by a main of the
// other numbering reads B as A without noticing when the shapes agree. A `_0` file is its mark
// (the seed never writes one): OldNumbering finds them so that khost push/run refuse the
// directory and khost tune removes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

inline constexpr size_t kFirstTensorIndex = 1;

// "matrix_<rows>x<cols>_<index>.txt" (".bin" when `binary`).
std::string TestDataFileName(int64_t rows, int64_t cols, size_t index, bool binary);

struct TestDataFile {
  int64_t rows = 0, cols = 0;
  size_t index = 0;
  bool binary = false;
};
// The parts of a name TestDataFileName writes; nullopt for any other name (pure).
std::optional<TestDataFile> ParseTestDataFileName(std::string_view name);

// The files directly in `test_data_dir` numbered from 0, sorted by name; none when the
// directory does not exist.
Result<std::vector<std::string>> OldNumberedTestData(const std::string& test_data_dir);

// The one line telling what to do about them (`kernel`'s run directory, `first` one of them).
std::string OldNumberingMessage(const std::string& kernel, const std::string& first, size_t count);

}  // namespace ktune::host
