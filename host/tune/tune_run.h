// khost tune's build (docs/KSPEC.md), the impure end of the pipeline: PrepareTune reads and checks
// the spec, the toolchain profile and the configurations (the grid, filtered and sampled, or
// Triton-CPU directories) and draws the test data, before anything is written; RunTune then
// writes the kernel's run directory (<root>/<kernel>/run): the test data, one ELF per
// configuration built on a pool of threads (cached by content), configs.json, and with --check
// every variant run under the profile's emulator and its output checked. What it does goes to
// stdout; build and check failures to stderr, as khost tune prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/shapes.h"
#include "host/tune/tensors.h"
#include "host/tune/toolchain.h"
#include "host/tune/variant_build.h"

namespace ktune::host {

// What khost tune is asked to build.
struct TuneOptions {
  std::string kernel;  // a name in kernels_dir, or a .kspec file
  std::string root = ".";
  std::string toolchain = "rvv-clang19";
  size_t jobs = 0;  // 0: one per core, or what the launcher takes (BuildParallelism)
  // --launcher: every compile through it, instead of the profile's launcher (toolchain.h).
  std::vector<std::string> launcher;
  std::optional<size_t> sample;
  uint64_t seed = 0;
  std::vector<std::string> shape;  // --shape sets (host/tune/shapes.h)
  std::string shapes_file;         // --shapes: a file of shapes
  std::string triton;              // Triton-CPU configuration directories instead of the grid
  bool check = false;
  double check_timeout_seconds = 300;
  std::string kernels_dir, toolchains_dir;
};

// Everything a tune needs, read and checked before any output is touched.
struct TunePlan {
  KernelSpec spec;
  Toolchain toolchain;
  std::vector<ShapeRun> shapes;  // one at least
  std::vector<TestData> data;    // per shape
  std::vector<Config> configs;   // those that run at one shape at least
  std::vector<TritonSources> triton;
  std::string summary;  // how the configurations were chosen
};
Result<TunePlan> PrepareTune(const TuneOptions& options);

// Writes each shape's test data into its directory under `run_dir`, as WriteTestData.
Status WriteShapesTestData(const TunePlan& plan, const std::string& run_dir);

// Writes the test data into `dir` (made), each file only when its bytes changed, removing the
// same tensor's file in the other format (the kernels read .bin before .txt) and what an earlier
// khost tune numbered from 0 (host/results/test_data_files.h): every `_0` file, and the current
// tensors' files under their old numbers unless they are written now (said on stdout).
Status WriteTestData(const TestData& data, const std::string& dir);

// khost tune without --apply-best: PrepareTune, then the run directory as above. Fails when a
// variant failed to build or its check (their errors said above it).
Status RunTune(const TuneOptions& options);

}  // namespace ktune::host
