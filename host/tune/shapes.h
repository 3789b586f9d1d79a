// The problem shapes a tune measures (khost tune/run/search --shape, --shapes FILE): one kernel,
// its configurations run with each shape's argv and test data.
//
// A shape set is NAME=VALUE pairs separated by spaces ("M=64 N=64 K=64"), each NAME a
// name of the spec's `shape:` line and each VALUE a positive integer. A set that gives every
// shape name the spec's tensors' dimensions use (its problem dimensions: M, N and K for matmul)
// is a shape of its own; a set that gives fewer changes the spec's shape (the `--shape M=64` of
// before) and every shape of the others. Names no set gives keep the spec's values
// (RUN_COUNT=3). A shapes file holds shapes only, one per line; `#` starts a comment and blank
// lines are skipped:
//
//   # the projections of a transformer layer
//   M=64 N=64 K=64
//   M=1024 N=64 K=4096
//
// No set at all: the spec's shape, one. Two sets making the same shape are an error.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"

namespace ktune::host {

// A shape: every name of the spec's `shape:` line with its value, in the spec's order.
using Shape = std::vector<std::pair<std::string, int64_t>>;

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

// The shapes of a tune from the --shape values and the shapes file's sets (pure), as above. An
// error names the set's `where`: a name the spec's shape lacks, a file's set not giving every
// problem dimension, a shape that is another's.
Result<std::vector<Shape>> ResolveShapes(const KernelSpec& spec,
                                         const std::vector<std::string>& shape_args,
                                         const std::vector<ShapeSet>& file_sets);

// The names the spec's tensors' dimensions use, in the spec's shape order (pure).
std::vector<std::string> ProblemDimensions(const KernelSpec& spec);

// One problem shape of a tune, as its variants run at it.
struct ShapeRun {
  Shape shape;
  std::vector<std::string> args;  // the ELF's argv at this shape
  // Its test data directory, under the kernel's run directory: "test_data", or
  // "test_data/<ShapeDirName>" when the tune has several shapes (a kernel reads it from the
  // KTUNE_TEST_DATA environment variable, kernels/common/ktune_kernel.c).
  std::string test_data;
  std::set<Config> excluded;  // configurations the constraints leave out at this shape
};

// Whether a variant's `shape` (configs.json's, as a results row's) has every NAME=VALUE of `set`.
bool InShape(const Params& shape, const std::vector<std::pair<std::string, int64_t>>& set);

// A shape as a results row has it (common/results.h: FormatParams gives the `shape` column,
// "M=64;N=64;K=64;RUN_COUNT=3", ShapeLabel the text for people, ShapeDirName a directory name).
Params ShapeParams(const Shape& shape);

}  // namespace ktune::host
