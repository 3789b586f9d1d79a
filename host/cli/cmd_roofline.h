// khost roofline: its request, the pure function that parses argv into it (unit-tested), its
// command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/measure/run_request.h"

namespace ktune::host {

struct RooflineArgs {
  std::string agent, token_file, toolchain, root, db, kernels_dir, toolchains_dir;
  uint64_t max_bytes = 0;  // the bandwidth sweep's largest working set; 0: from the caches
  uint64_t bytes_per_call = 0;
  uint64_t flops_iterations = 0;
  int threads = 1;
  MeasureOptions measure;
  bool json = false;
};
Result<RooflineArgs> ParseRooflineArgs(const Args& args);
cxxopts::Options RooflineCliOptions();
int RooflineMain(const Args& args);

// Pure: a size in bytes with an optional binary unit, "64MiB", "512KiB", "4096" (at least 4 KiB,
// at most 1 TiB); `option` names the flag in errors.
Result<uint64_t> ParseByteSize(const std::string& text, const std::string& option);

}  // namespace ktune::host
