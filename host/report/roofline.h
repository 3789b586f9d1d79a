// The roofline model (Williams, Waterman and Patterson, CACM 2009) as khost analyze uses it: a
// board's ceilings (its peak floating-point rate per precision and width, and its bandwidth per
// memory level, measured by khost roofline) and each variant of a run placed under them from the
// work its spec declares (host/tune/kspec.h flops and bytes). Pure: computed once, rendered as a
// table, in analysis.json and as the HTML report's plot.
//
// A variant's achieved rate is its work over its median time: GFLOP/s = flops / t / 1e9 and
// GB/s = bytes / t / 1e9; its arithmetic intensity is flops / bytes (FLOP per byte). The level
// whose bandwidth bounds it is the smallest memory level its working set (its bytes: the
// compulsory traffic) fits in, DRAM beyond the last cache. The attainable rate at intensity I
// under peak P and bandwidth B is min(P, I * B); the variant is memory-bound when I * B < P (left
// of the ridge point P / B), else compute-bound. Edge cases: no time or a zero time gives no
// rates; zero bytes gives no intensity (the variant is placed against the compute peak); zero
// flops gives no GFLOP/s (only bandwidth, against the level's ceiling).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune::host {

// The peak floating-point rate of one kind of instruction stream.
struct ComputeCeiling {
  std::string name;       // "fp32 vector m8", "fp64 scalar"
  std::string precision;  // "fp32" or "fp64"
  double gflops = 0;
};

// The bandwidth of one memory level, measured over working sets that fit it.
struct MemoryCeiling {
  std::string level;        // "L1", "L2", "L3", "DRAM"
  uint64_t size_bytes = 0;  // its capacity (working sets up to it fit); 0 for DRAM
  double gbytes_s = 0;
  // The smallest working set its bandwidth is the highest over, from a curve (LevelsFromCurve:
  // its points from here to size_bytes, DRAM's to the curve's end); 0 when not known, as for
  // ceilings read back from the tuning database, which keeps the bandwidth and capacity alone.
  uint64_t from_bytes = 0;
};

struct Ceilings {
  std::vector<ComputeCeiling> compute;
  std::vector<MemoryCeiling> memory;  // smallest level first, DRAM last
};

// One point of a bandwidth curve: a stream's rate over a working set of `bytes`.
struct BandwidthPoint {
  double bytes = 0;
  double gbytes_s = 0;
};

// The memory levels a bandwidth curve shows (pure), as the Empirical Roofline Toolkit reads its
// sweeps: the points in order of size, cut wherever the bandwidth falls by more than `drop` (a
// fraction: 0.2) from one point to the next; each run of points is a level, its bandwidth the
// highest of its points and its capacity its largest working set. A level of one point between
// two others is a transition (the working set half in one level, half in the next) and is left
// out. Levels are named L1, L2, ... and the last DRAM (capacity 0) when there are two or more; a
// curve with no fall (an emulator's, or a sweep too short) is one level, named "memory". DRAM's
// bandwidth is the highest of its points at working sets of at least 4x the last cache's
// capacity (STREAM's rule for its arrays): a last cache shared with other cores or machines
// fades out over several doublings (an Intel VM's read fell 25 -> 12.4 -> 10.7 -> 9.8 GB/s from
// 64 MiB to 512 MiB, all but the first one level by the 20% rule), and the points at its edge
// still hit it. Without such points, DRAM's is its largest working set's. Points of zero or
// negative bandwidth are ignored; no points, no levels.
std::vector<MemoryCeiling> LevelsFromCurve(std::vector<BandwidthPoint> curve, double drop = 0.2);

// The highest compute ceiling of `precision`; none when the board has none measured.
std::optional<ComputeCeiling> PeakOf(const Ceilings& c, const std::string& precision);

// The smallest level `working_set_bytes` fits in (DRAM, or the largest level measured, beyond
// them); none when no memory ceiling is measured.
std::optional<MemoryCeiling> LevelFor(const Ceilings& c, double working_set_bytes);

// min(peak, intensity * bandwidth), in GFLOP/s (intensity in FLOP/byte, bandwidth in GB/s).
double Attainable(double peak_gflops, double gbytes_s, double intensity);

// A variant's work over its time, and where that sits under the ceilings.
struct Placement {
  size_t variant = 0;  // index into the report's variants
  double seconds = 0;  // its median time
  std::optional<double> gflops, gbytes_s, intensity;
  // With ceilings: the level its working set fits, what it could attain there, how much of that
  // it reached, and what bounds it ("memory" or "compute").
  std::string level;
  std::optional<double> attainable_gflops, fraction;
  std::string bound;
};

struct VariantWorkTime {
  size_t variant = 0;
  std::optional<double> flops, bytes;  // one call's work
  std::optional<double> seconds;       // its median time per call
};

// Each variant placed (pure); `ceilings` absent: rates and intensity only. `precision` picks the
// compute peak ("fp32" for float32 kernels).
std::vector<Placement> PlaceVariants(const std::vector<VariantWorkTime>& variants,
                                     const std::optional<Ceilings>& ceilings,
                                     const std::string& precision);

// What the verdict says of the winner's placement: "42% of the board's attainable peak at its
// intensity (3.2 FLOP/byte), memory-bound at L2 (18.0 GB/s)", or, without ceilings, its rates.
std::string PlacementSentence(const Placement& p);

// The ceilings in two lines, as khost agent status shows them: the peak of each precision and
// what reaches it ("fp32 74.8 GFLOP/s (vector 32 B), fp64 37.9 GFLOP/s (vector 32 B)"), and each
// memory level with its capacity ("L1 60.9 GB/s to 8 KiB, L2 52.1 GB/s to 4 MiB, DRAM 8.93
// GB/s"); "" for a kind the board has none of.
// What ceilings of `threads` threads are called: "one core", "8 threads".
std::string ThreadsLabel(int64_t threads);

struct CeilingsSummary {
  std::string compute, memory;
};
CeilingsSummary SummarizeCeilings(const Ceilings& c);

// What a roofline says of a board (its common/cpu.h CpuFingerprint) whose RISC-V ids are an
// emulator's: mvendorid 0, as qemu's harts report it (qemu-system's virtual board), or no ids at
// all (qemu-user); "" for any other board.
std::string EmulatorNote(const std::string& board);

}  // namespace ktune::host
