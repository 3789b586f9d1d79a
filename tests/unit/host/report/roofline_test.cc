// The roofline model on inputs with known answers: peaks, levels, the attainable rate, and each
// variant placed (host/report/roofline.h).
#include "host/report/roofline.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

// A board of 16 GFLOP/s fp32 vector, 2 fp32 scalar, 4 fp64 vector; L1 32 KiB at 64 GB/s, L2
// 1 MiB at 32 GB/s, DRAM at 8 GB/s. Ridge points: fp32 at L1 0.25 FLOP/byte, L2 0.5, DRAM 2.
Ceilings Board() {
  Ceilings c;
  c.compute = {
      {"fp32 scalar", "fp32", 2}, {"fp32 vector m8", "fp32", 16}, {"fp64 vector m8", "fp64", 4}};
  c.memory = {{"L1", 32 << 10, 64}, {"L2", 1 << 20, 32}, {"DRAM", 0, 8}};
  return c;
}

TEST_CASE("the ceilings summarized: each precision's peak and what reaches it, each level") {
  const CeilingsSummary s = SummarizeCeilings(Board());
  CHECK(s.compute == "fp32 16 GFLOP/s (vector m8), fp64 4 GFLOP/s (vector m8)");
  CHECK(s.memory == "L1 64 GB/s to 32 KiB, L2 32 GB/s to 1 MiB, DRAM 8 GB/s");
  Ceilings scalar;
  scalar.compute = {{"fp64 scalar", "fp64", 1.25}};
  const CeilingsSummary t = SummarizeCeilings(scalar);
  CHECK(t.compute == "fp64 1.25 GFLOP/s (scalar)");
  CHECK(t.memory.empty());
  CHECK(ThreadsLabel(1) == "one core");
  CHECK(ThreadsLabel(8) == "8 threads");
}

TEST_CASE("an emulator's board is said to be one: RISC-V ids of 0, or none") {
  CHECK_FALSE(EmulatorNote("riscv64:0x0-0x0-0x0:").empty());  // qemu-system's virt harts
  CHECK_FALSE(EmulatorNote("riscv64:-0-0:").empty());         // qemu-user: no ids at all
  CHECK(EmulatorNote("riscv64:0x710-0x8000000058000001-0x0:Spacemit(R) X60").empty());
  CHECK(EmulatorNote("x86_64:AuthenticAMD-25-1:AMD EPYC").empty());
}

TEST_CASE("the peak of a precision is its highest ceiling; none when none is measured") {
  CHECK(PeakOf(Board(), "fp32")->gflops == 16);
  CHECK(PeakOf(Board(), "fp32")->name == "fp32 vector m8");
  CHECK(PeakOf(Board(), "fp64")->gflops == 4);
  CHECK_FALSE(PeakOf(Board(), "fp16"));
  CHECK_FALSE(PeakOf(Ceilings{}, "fp32"));
}

TEST_CASE("a working set's level: the smallest it fits in, DRAM beyond the caches") {
  CHECK(LevelFor(Board(), 1)->level == "L1");
  CHECK(LevelFor(Board(), 32 << 10)->level == "L1");  // exactly full still fits
  CHECK(LevelFor(Board(), (32 << 10) + 1)->level == "L2");
  CHECK(LevelFor(Board(), 1 << 20)->level == "L2");
  CHECK(LevelFor(Board(), 1e12)->level == "DRAM");
  Ceilings caches_only = Board();
  caches_only.memory.pop_back();
  CHECK(LevelFor(caches_only, 1e12)->level == "L2");  // the largest measured
  CHECK_FALSE(LevelFor(Ceilings{}, 1));
}

TEST_CASE("levels from a bandwidth curve: cut where it falls, transitions left out") {
  // L1 to 32 KiB at ~100 GB/s, L2 to 1 MiB at ~40, DRAM at ~10; 64 KiB and 2 MiB are
  // transitions (their working sets straddle two levels). Given out of order.
  const std::vector<BandwidthPoint> curve = {
      {8 << 10, 98},   {4 << 10, 95},   {16 << 10, 100}, {32 << 10, 97}, {64 << 10, 70},
      {128 << 10, 41}, {256 << 10, 40}, {512 << 10, 39}, {1 << 20, 38},  {2 << 20, 22},
      {8 << 20, 10},   {32 << 20, 9.5}, {128 << 20, 9.8}};
  const std::vector<MemoryCeiling> levels = LevelsFromCurve(curve);
  REQUIRE(levels.size() == 3);
  CHECK(levels[0].level == "L1");
  CHECK(levels[0].size_bytes == 32 << 10);
  CHECK(levels[0].gbytes_s == 100);
  CHECK(levels[1].level == "L2");
  CHECK(levels[1].size_bytes == 1 << 20);
  CHECK(levels[1].gbytes_s == 41);
  CHECK(levels[2].level == "DRAM");
  CHECK(levels[2].size_bytes == 0);
  CHECK(levels[2].gbytes_s == 10);
  // Where each level's bandwidth was taken from: its smallest working set.
  CHECK(levels[0].from_bytes == 4 << 10);
  CHECK(levels[1].from_bytes == 128 << 10);
  CHECK(levels[2].from_bytes == 8 << 20);
  // A flat curve (an emulator's) is one level; a short one too; none without points.
  const std::vector<MemoryCeiling> flat =
      LevelsFromCurve({{4096, 2.0}, {1 << 20, 1.9}, {1 << 26, 2.1}});
  REQUIRE(flat.size() == 1);
  CHECK(flat[0].level == "memory");
  CHECK(flat[0].gbytes_s == 2.1);
  CHECK(LevelsFromCurve({}).empty());
  CHECK(LevelsFromCurve({{4096, 0}, {8192, -1}}).empty());
  // Two levels: the second is DRAM.
  const std::vector<MemoryCeiling> two = LevelsFromCurve({{4096, 50}, {8192, 50}, {1 << 24, 5}});
  REQUIRE(two.size() == 2);
  CHECK(two[0].level == "L1");
  CHECK(two[0].size_bytes == 8192);
  CHECK(two[1].level == "DRAM");
}

TEST_CASE("DRAM's bandwidth: at 4x the last cache or more, where no cache holds any of it") {
  // A shared last cache that fades over several doublings (an Intel VM's read stream): L3 to
  // 64 MiB at ~25 GB/s, then 12.4 at 128 MiB (within 20% of 256 MiB's, so DRAM's first point,
  // not a transition), and DRAM's own rate from 256 MiB on.
  const std::vector<MemoryCeiling> levels = LevelsFromCurve({{1 << 20, 140},
                                                             {4 << 20, 25.1},
                                                             {16 << 20, 24.7},
                                                             {64 << 20, 22.8},
                                                             {128 << 20, 12.4},
                                                             {256 << 20, 10.7},
                                                             {512 << 20, 9.8},
                                                             {1 << 30, 9.7}});
  REQUIRE(levels.size() == 3);
  CHECK(levels[1].level == "L2");
  CHECK(levels[1].size_bytes == 64 << 20);
  CHECK(levels[1].gbytes_s == 25.1);
  CHECK(levels[1].from_bytes == 4 << 20);
  CHECK(levels[2].level == "DRAM");
  CHECK(levels[2].gbytes_s == 10.7);  // not 12.4: 128 MiB is less than 4 x 64 MiB
  CHECK(levels[2].from_bytes == 256 << 20);
  // A sweep that ends before 4x the last cache: DRAM's is its largest working set's.
  const std::vector<MemoryCeiling> short_sweep =
      LevelsFromCurve({{4096, 50}, {8192, 50}, {1 << 20, 5}, {2 << 20, 4.5}, {3 << 20, 4}});
  REQUIRE(short_sweep.size() == 2);
  CHECK(short_sweep[1].gbytes_s == 5);  // 1 MiB >= 4 x 8 KiB
  const std::vector<MemoryCeiling> too_short =
      LevelsFromCurve({{4096, 50}, {1 << 20, 50}, {2 << 20, 5}, {3 << 20, 4.5}});
  REQUIRE(too_short.size() == 2);
  CHECK(too_short[1].gbytes_s == 4.5);  // none at 4 MiB or more: the largest, 3 MiB
  CHECK(too_short[1].from_bytes == 3 << 20);
}

TEST_CASE("the attainable rate: the bandwidth's slope up to the ridge point, then the peak") {
  CHECK(Attainable(16, 8, 0.5) == 4);   // memory-bound: 0.5 FLOP/byte x 8 GB/s
  CHECK(Attainable(16, 8, 2) == 16);    // at the ridge point
  CHECK(Attainable(16, 8, 100) == 16);  // compute-bound
  CHECK(Attainable(16, 8, 0) == 0);
}

TEST_CASE("variants placed: rates, intensity, level, attainable, fraction and bound") {
  // A matmul-like variant: 2 MFLOP over 24 KiB (L1) in 1 ms: 2 GFLOP/s at intensity 81.4,
  // compute-bound: 2/16 of the peak.
  // A stream-like one: 1 MFLOP over 8 MB (DRAM) in 2 ms: 0.5 GFLOP/s, 4 GB/s, intensity 0.125,
  // attainable 0.125 x 8 = 1 GFLOP/s: half of it, memory-bound at DRAM.
  const std::vector<VariantWorkTime> v = {{0, 2e6, 24576, 1e-3},
                                          {1, 1e6, 8e6, 2e-3},
                                          {2, std::nullopt, 4e6, 1e-3},
                                          {3, 1e6, 0, 1e-3},
                                          {4, 1e6, 1e3, std::nullopt}};
  const std::vector<Placement> p = PlaceVariants(v, Board(), "fp32");
  REQUIRE(p.size() == 5);
  CHECK(*p[0].gflops == doctest::Approx(2));
  CHECK(*p[0].intensity == doctest::Approx(2e6 / 24576));
  CHECK(p[0].level == "L1");
  CHECK(p[0].bound == "compute");
  CHECK(*p[0].attainable_gflops == 16);
  CHECK(*p[0].fraction == doctest::Approx(0.125));

  CHECK(*p[1].gbytes_s == doctest::Approx(4));
  CHECK(*p[1].intensity == doctest::Approx(0.125));
  CHECK(p[1].level == "DRAM");
  CHECK(p[1].bound == "memory");
  CHECK(*p[1].attainable_gflops == doctest::Approx(1));
  CHECK(*p[1].fraction == doctest::Approx(0.5));
  CHECK(PlacementSentence(p[1]) ==
        "50.0% of the board's attainable peak at its intensity (0.5 GFLOP/s, 4 GB/s, 0.125 "
        "FLOP/byte), memory-bound at DRAM");

  // Only bytes (a copy): its bandwidth against the level's, 4 MB in 1 ms = 4 GB/s of 8.
  CHECK_FALSE(p[2].gflops);
  CHECK_FALSE(p[2].intensity);
  CHECK(*p[2].fraction == doctest::Approx(0.5));
  CHECK(p[2].bound == "memory");
  // No traffic declared: against the compute peak alone.
  CHECK_FALSE(p[3].intensity);
  CHECK(*p[3].attainable_gflops == 16);
  CHECK(p[3].bound == "compute");
  // No time: nothing placed.
  CHECK_FALSE(p[4].gflops);
  CHECK_FALSE(p[4].fraction);

  // Without ceilings: the rates alone, and the sentence says them.
  const std::vector<Placement> bare = PlaceVariants(v, std::nullopt, "fp32");
  CHECK(*bare[1].gflops == doctest::Approx(0.5));
  CHECK_FALSE(bare[1].fraction);
  CHECK(bare[1].level.empty());
  CHECK(PlacementSentence(bare[1]) == "0.5 GFLOP/s, 4 GB/s, 0.125 FLOP/byte");
  // fp64 against the fp64 peak: 2 GFLOP/s of 4.
  CHECK(*PlaceVariants({v[0]}, Board(), "fp64")[0].fraction == doctest::Approx(0.5));
}

}  // namespace
}  // namespace ktune::host
