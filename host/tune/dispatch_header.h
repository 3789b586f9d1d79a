// <kernel>_dispatch.h, which khost tune --apply-best writes beside the spec from a run of several
// problem shapes: the winning configuration at each measured shape, and a C function that picks
// one for any shape, for a kernel's program to include (kernels/matmul/dispatch_example.c). Pure.
//
// The lookup: the entry of the same shape when there is one; else the nearest measured shape,
// the one whose dimensions differ least by the product over the dimensions of the larger over
// the smaller (the same ordering as the sum of |log| of their ratios: twice as large in one
// dimension and equal in the others is at 2, as is half as large), the first in the table on a
// tie. A dimension of 0 or less is taken as 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct DispatchEntry {
  std::vector<int64_t> shape;   // a value per DispatchTable::dims
  std::vector<int64_t> config;  // a value per DispatchTable::params
  std::string comment;          // a line on why it won ("kernel-time 1.2 us, faster than ...")
};

struct DispatchTable {
  std::string kernel;
  std::string run_id;
  std::vector<std::string> dims;    // the problem dimensions the lookup takes, in order
  std::vector<std::string> params;  // the configuration's parameters, in the spec's order
  std::vector<DispatchEntry> entries;
};

// The header's text. Errors: no entry, a name that is not a C identifier, an entry of the wrong
// width, two entries of one shape.
Result<std::string> DispatchHeader(const DispatchTable& table);

}  // namespace ktune::host
