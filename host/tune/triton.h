// Triton-CPU input for `khost tune --triton DIR`: the per-configuration directories a patched
// Triton-CPU autotuner writes, one per variant:
//
//   DIR/<kernel>_<cfg>/blk_constants.json         {"BLOCK_SIZE_M": 4, "BLOCK_SIZE_N": 16, ...}
//   DIR/<kernel>_<cfg>/<kernel>_kernel.llir       the kernel as LLVM IR
//   DIR/<kernel>_<cfg>/<kernel>_kernel_launcher.cpp
//
// The .llir names the triple Triton compiled for, usually the host's; RetargetIr rewrites it for
// the toolchain's target.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"

namespace ktune::host {

struct TritonConfig {
  std::string dir;  // the per-configuration directory
  Config config;    // values of the spec's parameters, in its order
  std::string llir_path, launcher_path;
};

// Parses one blk_constants.json (pure): every spec parameter must be there with an integer
// value; keys that are spec constants must agree with the spec; other keys are errors.
Result<Config> ParseBlkConstants(const std::string& json_text, const KernelSpec& spec,
                                 const std::string& path);

// The configurations under `dir` (subdirectories holding blk_constants.json), sorted by
// directory name; configurations equal to an earlier one are dropped and counted in `*dropped`.
Result<std::vector<TritonConfig>> ScanTritonDir(const std::string& dir, const KernelSpec& spec,
                                                size_t* dropped);

struct IrTarget {
  std::string triple, datalayout;
};

// The `target triple` and `target datalayout` lines of LLVM IR text ("" when absent).
IrTarget ReadIrTarget(std::string_view ir);

// `ir` for `target` (pure). IR already for the target's architecture is returned unchanged.
// IR naming `host_arch` (uname's machine, "x86_64") gets the target's triple and data layout, and
// its functions lose the host's "target-cpu", "target-features" and "tune-cpu" attributes (the
// toolchain's flags choose them). IR for a third architecture is an error.
Result<std::string> RetargetIr(std::string_view ir, const IrTarget& target,
                               std::string_view host_arch, const std::string& what);

}  // namespace ktune::host
