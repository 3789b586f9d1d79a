// khost roofline's pure steps (docs/ROOFLINE.md): what the microkernels (kernels/roofline) are
// built at for a toolchain, the working sets the bandwidth sweep visits, and the board's ceilings
// derived from the two runs' reports (host/report/roofline.h holds the model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/db/tuning_db.h"
#include "host/report/report.h"
#include "host/report/roofline.h"
#include "host/tune/toolchain.h"

namespace ktune::host {

// The vector widths a toolchain builds for, in bytes: RVV from -march's V and zvl<N>b (VLEN N:
// N / 8 up to N, LMUL 1 to 8); x86-64 (the native profile on an x86-64 host) 16 and 32 (SSE and
// AVX2; the kernel is built for AVX2 with FMA); otherwise none (min = max = 0: scalars only).
struct VectorWidths {
  int min_bytes = 0, max_bytes = 0;
  std::string what;  // "RVV, VLEN 256", "x86-64 AVX2", "no vectors"
};
VectorWidths WidthsOf(const Toolchain& t, const std::string& host_arch);

// The bandwidth sweep's working sets: powers of two from `min_bytes` to `max_bytes` (both rounded
// down to a power of two, at least 4 KiB), each with the sweeps that move about `bytes_per_call`
// (at least one): lines of a --shapes file, "N=<doubles per array> SWEEPS=<n> RUN_COUNT=1" (the
// read stream's working set is N * 8 bytes). Errors: max below min.
Result<std::vector<std::string>> BandwidthShapes(uint64_t min_bytes, uint64_t max_bytes,
                                                 uint64_t bytes_per_call);

// One stream's bandwidth curve: "read", "write", "copy", "triad".
struct StreamCurve {
  std::string stream;
  std::vector<BandwidthPoint> points;  // working set (every array the stream touches), GB/s
};

struct MeasuredCeilings {
  Ceilings ceilings;  // compute per precision and width; memory levels from the read stream
  std::vector<StreamCurve> streams;
  std::vector<std::vector<MemoryCeiling>> stream_levels;  // LevelsFromCurve of each stream
};

// The ceilings of the two runs: roofline_flops's variants (PREC, WIDTH) give GFLOP/s as their
// work over their median time; roofline_bandwidth's (OP at each shape's N) give GB/s per
// working set, a curve per stream, whose levels LevelsFromCurve finds. The memory ceilings are
// the read stream's levels (what a kernel's loads see; every stream's are kept beside them).
// Errors: a run whose variants lack the work or the parameters the microkernels have.
Result<MeasuredCeilings> CeilingsOf(const RunReport& flops, const RunReport& bandwidth);

// The ceilings as the tuning database keeps them (host/db/tuning_db.h), and back: compute
// ceilings, the memory levels, and each stream's levels (named "<stream> <level>").
std::vector<CeilingRow> CeilingRowsOf(const MeasuredCeilings& m, const std::string& run_id,
                                      int64_t measured_ns);
Ceilings CeilingsFromRows(const std::vector<CeilingRow>& rows);

}  // namespace ktune::host
