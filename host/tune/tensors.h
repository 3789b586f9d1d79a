// Test data for kernels: inputs drawn from a spec's distributions, golden outputs from its
// reference, written where every variant's main reads them:
//
//   <kernel>/run/test_data/matrix_<rows>x<cols>_<idx>.txt   the seed's TXT format
//   <kernel>/run/test_data/matrix_<rows>x<cols>_<idx>.bin   the binary format, for large tensors
//
// idx counts from 1, the spec's inputs, then its outputs (matmul: A 1, B 2, golden C 3), as the
// seed numbers them (host/results/test_data_files.h). An N-D tensor is written flattened to
// (product of leading dims) x last dim; a 1-D tensor is 1 x n.
//
// TXT: "rows cols" on the first line, then each row's values separated by spaces, one row per
// line (float32 with 9 significant digits, which read back exactly; int32 as integers).
// BIN: a 32-byte header, then rows*cols little-endian values:
//   "KTTENSR1"  u32 dtype (0 float32, 1 int32)  u32 zero  u64 rows  u64 cols
// kernels/common/ktune_kernel.c reads both; these functions are the host's reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "host/tune/kspec.h"
#include "host/tune/references.h"

namespace ktune::host {

// `n` values of `t`'s distribution, from its seed. The generator is mt19937_64 (its sequence is
// fixed by the C++ standard) with ktune's own mapping to doubles, so the same spec gives the same
// data with any standard library. float32 values are rounded to float, int32 ones to integers
// (uniform: in [low, high]).
std::vector<double> GenerateValues(const TensorSpec& t, int64_t n);

// The file's name for tensor number `idx` (from kFirstTensorIndex) with these dims.
std::string TensorFileName(const std::vector<int64_t>& dims, size_t idx, DataFormat format);

// Whether a main source reads its tensors through ktune's loader (kernels/common/ktune_kernel.h),
// which reads both formats: the text calls kt_load_f32 or kt_load_i32 (pure; a mention in a
// comment counts too). A seed-style main with its own reader reads TXT only.
bool CallsKtuneLoader(std::string_view source);

// The spec's `data:` as it applies to these mains: auto stays auto (binary above
// kBinaryThreshold) only when `main_calls_loader`; otherwise auto is TXT, so that a main with
// its own reader is never given a format it cannot read. txt and bin are kept as asked.
DataFormat ResolveDataFormat(DataFormat wanted, bool main_calls_loader);

// Which format a tensor of `elements` is written in.
DataFormat ChooseFormat(DataFormat wanted, int64_t elements);

std::string EncodeTensor(const HostTensor& t, DType dtype, DataFormat format);
// Reads either format (BIN when the bytes start with the magic); dims come back as [rows, cols].
Result<HostTensor> DecodeTensor(const std::string& bytes, const std::string& what);

struct TestData {
  std::vector<std::pair<std::string, std::string>> files;  // name -> bytes, inputs then outputs
};

// Which file is which, for khost tune's output: "A _1, B _2, golden C _3 (TXT)" (pure).
std::string DescribeTestData(const KernelSpec& spec, const TestData& data);

// Inputs and golden outputs for `spec` at `shape` in `format` (ResolveDataFormat's; pure).
Result<TestData> MakeTestData(const KernelSpec& spec,
                              const std::vector<std::pair<std::string, int64_t>>& shape,
                              DataFormat format);

}  // namespace ktune::host
