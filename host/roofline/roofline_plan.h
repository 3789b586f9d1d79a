// khost roofline's pure steps (docs/ROOFLINE.md): what the microkernels (kernels/roofline) are
// built at for a toolchain, the working sets the bandwidth sweep visits, and the board's ceilings
// derived from the two runs' reports (host/report/roofline.h holds the model).
#pragma once

#include <cstdint>
#include <optional>
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
// (at least one): lines of a --shapes file, "N=<doubles per array and thread> SWEEPS=<n>
// THREADS=<threads> RUN_COUNT=1". The read stream's working set is N * 8 * THREADS bytes: the
// threads share each set, N rounded down to a multiple of 16 (the microkernel's unroll); a set
// too small for 16 doubles per thread is left out. Errors: max below min, no set left.
Result<std::vector<std::string>> BandwidthShapes(uint64_t min_bytes, uint64_t max_bytes,
                                                 uint64_t bytes_per_call, int threads = 1);

// The bandwidth sweep's largest working set, and what it comes from (for people).
struct SweepLimit {
  uint64_t max_bytes = 0;
  std::string from;  // "--max-size", "4 x L3 (12288 KiB)", "the board lists no caches"
};
inline constexpr uint64_t kDefaultSweepBytes = uint64_t{64} << 20;
// `asked_bytes` (--max-size; 0: not given) when given. Else 4 x the board's last-level cache, the
// largest data or unified cache of `caches` (a system check's: "L1d:32K L1i:32K L2:1024K"),
// rounded up to a power of two: the sweep's last sets are then well in DRAM. Else (no caches
// listed, as on qemu's virt board; words not of the form L<level>[d|i]:<size>[K|M|G] are
// skipped) kDefaultSweepBytes.
SweepLimit SweepLimitOf(uint64_t asked_bytes, const std::optional<std::string>& caches);

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

// The ceilings of the two runs, each rate a variant's work over its fastest repetition's time
// (the best rate, as STREAM and the Empirical Roofline Toolkit report theirs; a median sits
// below the runs that reached it where the rate moves from run to run, and variants placed under
// the ceilings keep theirs):
// roofline_flops's variants (PREC, WIDTH) give GFLOP/s; roofline_bandwidth's (OP at each shape's
// N and THREADS, 1 when a run has none) give GB/s per working set, a curve per stream, whose
// levels LevelsFromCurve finds.
// Read's curve has the faster of its two loops (OP 0, and OP 4 with software prefetch) at each
// working set.
// The memory ceilings are the read stream's levels (what a kernel's loads see; every stream's are
// kept beside them). Errors: a run whose variants lack the work or the parameters the microkernels
// have; a run none of whose variants ran to the end.
Result<MeasuredCeilings> CeilingsOf(const RunReport& flops, const RunReport& bandwidth);

// The ceilings as the tuning database keeps them (host/db/tuning_db.h), and back: compute
// ceilings, the memory levels, and each stream's levels (named "<stream> <level>"). Each row
// names the run that measured it: the compute rows the flops run, the others the bandwidth run.
struct RunIds {
  std::string flops, bandwidth;
};
std::vector<CeilingRow> CeilingRowsOf(const MeasuredCeilings& m, const RunIds& runs,
                                      int64_t measured_ns);
Ceilings CeilingsFromRows(const std::vector<CeilingRow>& rows);

}  // namespace ktune::host
