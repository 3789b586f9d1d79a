// Kernel specs: what `khost tune` reads to build one ELF per configuration of a kernel. A spec is
// kernels/<name>/<name>.kspec, one directive per line ('#' starts a comment line); the format is
// documented with an example in docs/KSPEC.md.
//
//   kernel: NAME                        the kernel; its entry symbol is NAME_kernel
//   main: FILE...                       sources every variant links (main, helpers)
//   kernel_source: FILE...              the C kernel (replaced by the .llir for Triton input)
//   include: DIR...                     header directories
//   cflags: FLAG...                     extra compiler flags
//   param: NAME = V1 V2 ...             a tunable parameter and its candidate integer values
//   constant: NAME = V                  a fixed integer (GROUP_SIZE_M)
//   constraint: EXPR                    host/util/expr.h over params, constants and shape names
//   flops: EXPR                         the work of one kernel call, over the same names: floating-
//   bytes: EXPR                         point operations and bytes moved to and from memory
//   shape: NAME=V ...                   the problem shape (M=192 N=192 K=192 RUN_COUNT=3)
//   args: TEMPLATE...                   argv, {NAME} replaced by shape values ({M}x{N}x{K}x...)
//   input: NAME DTYPE [D1, D2...] DIST [seed=N]
//   output: NAME DTYPE [D1, D2...] [atol=X] [rtol=X]
//   reference: NAME                     the host implementation computing golden outputs
//   data: auto | txt | bin              test data format (auto: ResolveDataFormat,
//   host/tune/tensors.h)
//
// Paths are relative to the spec's directory. Every error names the spec's file and line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "host/results/shape_sets.h"
#include "host/util/expr.h"

namespace ktune::host {

enum class DType { kFloat32, kInt32 };
const char* DTypeName(DType t);

struct Distribution {
  enum Kind { kUniform, kNormal, kConstant } kind = kUniform;
  double a = 0, b = 0;  // uniform: low, high; normal: mean, stddev; constant: value
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<std::string> dims;  // shape names or integers, as written
  Distribution dist;              // inputs only
  uint64_t seed = 0;              // inputs only
  double atol = 0, rtol = 0;      // outputs only
  size_t line = 0;
};

// A parameter's candidate values at most: a space of more is searched (khost tune --strategy),
// not listed value by value.
inline constexpr size_t kMaxParamValues = 4096;

struct SpecParam {
  std::string name;
  std::vector<int64_t> values;  // duplicates removed, first occurrence kept
  size_t line = 0;
};

// A constraint or a work formula as written, parsed, with its line.
struct SpecFormula {
  std::string text;
  Expr expr;
  size_t line = 0;
};

enum class DataFormat { kAuto, kTxt, kBin };
// Tensors with more elements than this are written in binary when the format is auto and the
// main reads through ktune's loader (ResolveDataFormat, host/tune/tensors.h).
inline constexpr int64_t kBinaryThreshold = int64_t{1} << 20;

struct KernelSpec {
  std::string path;  // the .kspec file
  std::string dir;   // its directory; sources are relative to it
  std::string name;
  std::vector<std::string> main_sources, kernel_sources, include_dirs, cflags;
  std::vector<SpecParam> params;
  std::vector<std::pair<std::string, int64_t>> constants;
  std::vector<SpecFormula> constraints;
  // The work of one call of the kernel at a shape (khost analyze places each variant on the
  // board's roofline with them): floating-point operations, and bytes to and from memory.
  std::optional<SpecFormula> flops, bytes;
  std::vector<std::pair<std::string, int64_t>> shape;
  std::vector<std::string> args;
  std::vector<TensorSpec> inputs, outputs;
  std::string reference;
  DataFormat data = DataFormat::kAuto;
  // The configuration `khost tune --apply-best` chose ("best: NAME=VALUE ..."): every parameter
  // once; empty when none was applied.
  std::vector<std::pair<std::string, int64_t>> best;
};

// Where a spec line's comment starts: the first '#' at the start of the line or after a space or
// tab (a '#' inside a word, as in -DX=#, is not one); npos when the line has none (pure).
size_t CommentStart(std::string_view line);

// Parses spec text (pure). `path` names the file in messages and gives the source directory.
Result<KernelSpec> ParseKernelSpec(std::string_view text, const std::string& path);

// `name_or_path`: a .kspec file, or a kernel name looked up as <kernels_dir>/<name>/<name>.kspec.
Result<std::string> KernelSpecPath(const std::string& name_or_path, const std::string& kernels_dir);
Result<KernelSpec> LoadKernelSpec(const std::string& name_or_path, const std::string& kernels_dir);

// Test data stops at this many elements per tensor (the host holds them as doubles).
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 26;

// A tensor's dimensions under `shape`; more than kMaxTensorElements elements is an error.
Result<std::vector<int64_t>> TensorDims(const TensorSpec& t,
                                        const std::vector<std::pair<std::string, int64_t>>& shape);

// argv for the ELF: `args` with {NAME} replaced by shape values.
Result<std::vector<std::string>> ExpandArgs(
    const KernelSpec& spec, const std::vector<std::pair<std::string, int64_t>>& shape);

}  // namespace ktune::host
