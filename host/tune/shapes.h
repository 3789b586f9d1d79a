// The problem shapes a tune measures (khost tune/run/search --shape, --shapes FILE): one kernel,
// its configurations run with each shape's argv and test data.
//
// A shape set (host/results/shape_sets.h) is NAME=VALUE pairs, each NAME a name of the spec's
// `shape:` line. A set that gives every shape name the spec's tensors' dimensions use (its
// problem dimensions: M, N and K for matmul) is a shape of its own; a set that gives fewer
// changes the spec's shape (the `--shape M=64` of before) and every shape of the others. Names no
// set gives keep the spec's values (RUN_COUNT=3). A shapes file holds shapes only, one per line.
// No set at all: the spec's shape, one. Two sets making the same shape are an error.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/results/shape_sets.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"

namespace ktune::host {

// A shape: every name of the spec's `shape:` line with its value, in the spec's order.
using Shape = std::vector<std::pair<std::string, int64_t>>;

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
  std::map<Config, VariantWork> work = {};  // of the others, when the spec has work formulas
};

// A shape as a results row has it (common/results.h: FormatParams gives the `shape` column,
// "M=64;N=64;K=64;RUN_COUNT=3", ShapeLabel the text for people, ShapeDirName a directory name).
Params ShapeParams(const Shape& shape);

}  // namespace ktune::host
