// Test data for kernels: inputs drawn from a spec's distributions, golden outputs from its
// reference, written where every variant's main reads them:
//
//   <kernel>/run/test_data/matrix_<rows>x<cols>_<idx>.txt   the seed's TXT format
//   <kernel>/run/test_data/matrix_<rows>x<cols>_<idx>.bin   the binary format, for large tensors
//
// idx counts the spec's inputs, then its outputs (matmul: A 0, B 1, golden C 2). An N-D tensor is
// written flattened to (product of leading dims) x last dim; a 1-D tensor is 1 x n.
//
// TXT: "rows cols" on the first line, then each row's values separated by spaces, one row per
// line (float32 with 9 significant digits, which read back exactly; int32 as integers).
// BIN: a 32-byte header, then rows*cols little-endian values:
//   "KTTENSR1"  u32 dtype (0 float32, 1 int32)  u32 zero  u64 rows  u64 cols
// kernels/common/ktune_kernel.c reads both; these functions are the host's reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/kspec.h"
#include "host/references.h"

namespace ktune {

// `n` values of `t`'s distribution, from its seed. The generator is mt19937_64 (its sequence is
// fixed by the C++ standard) with ktune's own mapping to doubles, so the same spec gives the same
// data with any standard library. float32 values are rounded to float, int32 ones to integers
// (uniform: in [low, high]).
std::vector<double> GenerateValues(const TensorSpec& t, int64_t n);

// The file's name for tensor number `idx` with these dims.
std::string TensorFileName(const std::vector<int64_t>& dims, size_t idx, DataFormat format);

// Which format a tensor of `elements` is written in.
DataFormat ChooseFormat(DataFormat wanted, int64_t elements);

std::string EncodeTensor(const HostTensor& t, DType dtype, DataFormat format);
// Reads either format (BIN when the bytes start with the magic); dims come back as [rows, cols].
Result<HostTensor> DecodeTensor(const std::string& bytes, const std::string& what);

struct TestData {
  std::vector<std::pair<std::string, std::string>> files;  // name -> bytes, inputs then outputs
};

// Inputs and golden outputs for `spec` at `shape` (pure).
Result<TestData> MakeTestData(const KernelSpec& spec,
                              const std::vector<std::pair<std::string, int64_t>>& shape);

}  // namespace ktune
