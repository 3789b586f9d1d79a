// khost roofline's service (docs/ROOFLINE.md): builds the microkernels of kernels/roofline for a
// toolchain (host/tune), measures them on an agent as two ordinary runs (host/measure: pushed,
// pinned, interleaved, repeated), derives the board's ceilings (roofline_plan.h) and keeps them
// in the tuning database under the board's fingerprint, where khost analyze finds them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "host/db/tuning_db.h"
#include "host/measure/run_request.h"
#include "host/roofline/roofline_plan.h"

namespace ktune::host {

struct RooflineRequest {
  std::string agent, token_file;  // as khost run takes them ("" the default agent)
  std::string toolchain = "rvv-clang19";
  std::string root;  // where the microkernels are built and their runs kept
  // The bandwidth sweep's sets: from min_bytes to max_bytes, or (0) SweepLimitOf's size for the
  // board's caches.
  uint64_t min_bytes = 4096, max_bytes = 0;
  uint64_t bytes_per_call = uint64_t{256} << 20;  // what each call moves
  uint64_t flops_iterations = 20'000'000;         // each chain's, per call
  int threads = 1;         // run at once, each pinned to a CPU of its own: the all-core ceilings
  MeasureOptions measure;  // repetitions, CPU, order...
  std::string kernels_dir, toolchains_dir;
  TuningDb* db = nullptr;  // where the ceilings are kept (null: not kept)
};

struct RooflineResult {
  MeasuredCeilings measured;
  std::string board;                     // the fingerprint the rows carry
  std::string flops_run, bandwidth_run;  // their results files
  VectorWidths widths;
  SweepLimit sweep;  // the bandwidth sweep's largest set, and what it comes from
  int threads = 1;
};

Result<RooflineResult> MeasureRoofline(const RooflineRequest& request);

// The ceilings the tuning database keeps for `board` (single-threaded: what analyze places a
// run's variants under), in the model's terms; none when it has none.
Result<std::optional<Ceilings>> StoredCeilings(TuningDb& db, const std::string& board);

}  // namespace ktune::host
