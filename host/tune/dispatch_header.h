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

#include "common/results.h"
#include "common/status.h"
#include "host/tune/kspec.h"

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

// A shape's winner as the analysis found it (khost tune --apply-best): its shape and
// configuration as a results row has them, and why it won; or, with no winner, why not.
struct ShapeWinner {
  Params shape;
  Params config;
  std::string variant;  // its ELF, for messages
  std::string why;      // "kernel-time 1.2 us, faster than the runner-up"
  std::string problem;  // "": it won; else why the shape has no winner
};

// The table of a run's `winners` (pure): the spec's problem dimensions the shapes give, its
// parameters, an entry per shape with a winner. `notes` gets a line for each shape left out (no
// winner; measured twice in the dimensions, the first kept). Errors: a shape without an integer
// dimension, a winner without an integer parameter (the spec changed since the run).
Result<DispatchTable> MakeDispatchTable(const KernelSpec& spec, const std::string& run_id,
                                        const std::vector<ShapeWinner>& winners,
                                        std::vector<std::string>* notes);

// The header's text. Errors: no entry, a name that is not a C identifier, an entry of the wrong
// width, two entries of one shape.
Result<std::string> DispatchHeader(const DispatchTable& table);

}  // namespace ktune::host
