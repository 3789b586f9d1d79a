// Shape sets as users write them (khost tune and khost run --shape, --shapes FILE): NAME=VALUE
// pairs separated by spaces ("M=64 N=64 K=64"), each VALUE a positive integer a kernel's main
// reads as a C int. A shapes file holds one set per line; `#` starts a comment and blank lines are
// skipped:
//
//   # the projections of a transformer layer
//   M=64 N=64 K=64
//   M=1024 N=64 K=4096
//
// Below tune and run alike: khost tune resolves the sets against the spec (host/tune/shapes.h),
// khost run keeps the variants at them (KeepVariantsAt).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/results/kernel_dir.h"

namespace ktune::host {

// A shape value: a C int a kernel's main reads from its argv (RUN_COUNT too), at least 1.
inline constexpr int64_t kMaxShapeValue = INT32_MAX;

// One set as written, with where it came from for messages ("shapes.txt:3", "--shape").
struct ShapeSet {
  std::vector<std::pair<std::string, int64_t>> values;
  std::string where;
};

// Parses one set (pure). (Not commas: cxxopts splits an option's value there, so that
// --shape M=64,N=64 is two sets of one name each.) Errors: not NAME=VALUE, a value that is not a
// positive integer, a name given twice; empty text is an empty set.
Result<std::vector<std::pair<std::string, int64_t>>> ParseShapeSet(std::string_view text);

// Parses a shapes file (pure): its sets, each `where` "<path>:<line>". An error names the path
// and line.
Result<std::vector<ShapeSet>> ParseShapesFile(std::string_view text, const std::string& path);

// --shapes FILE: its sets; a file that cannot be read, or holds no set, is an error naming it.
Result<std::vector<ShapeSet>> ReadShapesFile(const std::string& path);

// Whether a variant's `shape` (configs.json's, as a results row's) has every NAME=VALUE of `set`.
bool InShape(const Params& shape, const std::vector<std::pair<std::string, int64_t>>& set);

// Keeps the variants whose shape is in one of `sets` at least (pure); a set no variant of
// `kernel` runs at is an error naming its `where`.
Status KeepVariantsAt(const std::vector<ShapeSet>& sets, const std::string& kernel,
                      std::vector<KernelVariant>* variants);

}  // namespace ktune::host
