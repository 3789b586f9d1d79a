// khost roofline's pure steps on inputs with known answers: the widths a toolchain builds for,
// the bandwidth sweep's shapes, the ceilings of two runs, and their rows in the database.
#include "host/roofline/roofline_plan.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

Toolchain Profile(const std::string& processor, const std::vector<std::string>& flags) {
  Toolchain t;
  t.processor = processor;
  t.target_flags = flags;
  return t;
}

TEST_CASE("vector widths: RVV from -march's V and zvl, x86-64 AVX2, else none") {
  const VectorWidths rvv = WidthsOf(
      Profile("riscv64", {"--target=riscv64-linux-gnu", "-march=rv64gcv_zvl256b"}), "x86_64");
  CHECK(rvv.min_bytes == 32);
  CHECK(rvv.max_bytes == 256);
  CHECK(rvv.what == "RVV, VLEN 256");
  CHECK(WidthsOf(Profile("riscv64", {"-march=rv64gcv_zvl128b"}), "x86_64").max_bytes == 128);
  // rv64gc has no V; zvl without V is not a vector unit.
  CHECK(WidthsOf(Profile("riscv64", {"-march=rv64gc", "-mabi=lp64d"}), "x86_64").max_bytes == 0);
  CHECK(WidthsOf(Profile("riscv64", {"-march=rv64gc_zvl256b"}), "x86_64").max_bytes == 0);
  const VectorWidths native = WidthsOf(Profile("", {}), "x86_64");
  CHECK(native.min_bytes == 16);
  CHECK(native.max_bytes == 32);
  CHECK(WidthsOf(Profile("", {}), "aarch64").what == "no vectors");
  CHECK(WidthsOf(Profile("aarch64", {"-march=armv8-a"}), "x86_64").max_bytes == 0);
}

TEST_CASE("the bandwidth sweep: powers of two, each moving about the same bytes") {
  auto shapes = BandwidthShapes(4096, 32768, 1 << 20);
  REQUIRE(shapes.ok());
  CHECK(*shapes == std::vector<std::string>{"N=512 SWEEPS=256 THREADS=1 RUN_COUNT=1",
                                            "N=1024 SWEEPS=128 THREADS=1 RUN_COUNT=1",
                                            "N=2048 SWEEPS=64 THREADS=1 RUN_COUNT=1",
                                            "N=4096 SWEEPS=32 THREADS=1 RUN_COUNT=1"});
  // Rounded down to powers of two, 4 KiB at least; one sweep at least.
  auto odd = BandwidthShapes(1000, 12000, 100);
  REQUIRE(odd.ok());
  CHECK(*odd == std::vector<std::string>{"N=512 SWEEPS=1 THREADS=1 RUN_COUNT=1",
                                         "N=1024 SWEEPS=1 THREADS=1 RUN_COUNT=1"});
  // Threads share each set: N per thread, a multiple of 16; a set without 16 each is left out.
  auto three = BandwidthShapes(4096, 16384, 1 << 20, 3);
  REQUIRE(three.ok());
  CHECK(*three == std::vector<std::string>{"N=160 SWEEPS=256 THREADS=3 RUN_COUNT=1",
                                           "N=336 SWEEPS=128 THREADS=3 RUN_COUNT=1",
                                           "N=672 SWEEPS=64 THREADS=3 RUN_COUNT=1"});
  auto many = BandwidthShapes(4096, 8192, 1 << 20, 64);
  REQUIRE(many.ok());
  CHECK(*many == std::vector<std::string>{"N=16 SWEEPS=128 THREADS=64 RUN_COUNT=1"});
  CHECK(BandwidthShapes(4096, 4096, 1, 64).status().message() ==
        "no working set up to 4096 bytes holds 16 doubles for each of 64 threads");
  CHECK(BandwidthShapes(1 << 20, 4096, 1).status().message() ==
        "the largest working set (4096 bytes) is below the smallest (1048576)");
}

TEST_CASE("the sweep's largest set: --max-size, else 4x the last cache, else 64 MiB") {
  const std::string x86 = "L1d:48K L1i:32K L2:1280K L3:12288K";
  CHECK(SweepLimitOf(1 << 20, x86).max_bytes == 1 << 20);
  CHECK(SweepLimitOf(1 << 20, x86).from == "--max-size");
  // 4 x 12 MiB = 48 MiB, up to a power of two.
  CHECK(SweepLimitOf(0, x86).max_bytes == uint64_t{64} << 20);
  CHECK(SweepLimitOf(0, x86).from == "4 x L3 (12288 KiB)");
  // A K1 cluster: 32 KiB L1d and a 512 KiB L2, its last; an instruction cache never counts.
  const SweepLimit k1 = SweepLimitOf(0, "L1i:32K L1d:32K L2:512K");
  CHECK(k1.max_bytes == 2 << 20);
  CHECK(k1.from == "4 x L2 (512 KiB)");
  CHECK(SweepLimitOf(0, "L1i:4M L1d:1M").from == "4 x L1 (1024 KiB)");
  CHECK(SweepLimitOf(0, "L2:1M L3:8M").max_bytes == 32 << 20);
  CHECK(SweepLimitOf(0, "L2:1048576").max_bytes == 4 << 20);  // no unit: bytes
  // None listed, or nothing readable: the default.
  for (const std::optional<std::string>& none :
       std::vector<std::optional<std::string>>{std::nullopt, "", "L2 1M", "X3:8M", "L:8M", "Lx:8M",
                                               "L2:", "L2:0K", "L2:8T", "L2:99999999999999K"}) {
    CAPTURE(none.value_or("(unset)"));
    CHECK(SweepLimitOf(0, none).max_bytes == kDefaultSweepBytes);
    CHECK(SweepLimitOf(0, none).from == "the board lists no caches");
  }
}

// A variant of one of the microkernels, valid, with its fastest repetition's kernel-time and
// work (its median a fifth slower: the ceilings are taken from the fastest).
VariantSummary Variant(const std::string& name, Params params, Params shape, double seconds,
                       VariantWork work) {
  VariantSummary v;
  v.name = name;
  v.params = std::move(params);
  v.shape = std::move(shape);
  v.repetitions = v.valid = 3;
  ValueSummary t;
  t.name = kKernelTime;
  t.unit = "s";
  t.min = seconds;
  t.median = seconds * 1.2;
  v.values.push_back(t);
  v.work = work;
  return v;
}

TEST_CASE("the ceilings of two runs: GFLOP/s per precision and width, levels per stream") {
  RunReport flops;
  flops.best_by = kKernelTime;
  flops.variants = {Variant("s", {{"PREC", "32"}, {"WIDTH", "0"}}, {}, 1, {4e9, 0.0}),
                    Variant("v", {{"PREC", "32"}, {"WIDTH", "32"}}, {}, 1, {32e9, 0.0}),
                    Variant("d", {{"PREC", "64"}, {"WIDTH", "32"}}, {}, 2, {32e9, 0.0})};
  RunReport bw;
  bw.best_by = kKernelTime;
  // read: 8 KiB and 16 KiB at 80 GB/s, 1 MiB and 2 MiB at 10; triad only at 8 KiB x 3.
  for (const auto& [n, gbs] :
       std::vector<std::pair<int, double>>{{1024, 80}, {2048, 80}, {131072, 10}, {262144, 10}}) {
    const double bytes = 8.0 * n * 100;
    bw.variants.push_back(Variant("r", {{"OP", "0"}}, {{"N", std::to_string(n)}},
                                  bytes / (gbs * 1e9), {std::nullopt, bytes}));
  }
  bw.variants.push_back(Variant("t", {{"OP", "3"}}, {{"N", "1024"}}, 24.0 * 1024 * 100 / 60e9,
                                {1.0, 24.0 * 1024 * 100}));
  auto m = CeilingsOf(flops, bw);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  REQUIRE(m->ceilings.compute.size() == 3);
  CHECK(m->ceilings.compute[0].name == "fp32 scalar");
  CHECK(m->ceilings.compute[0].gflops == doctest::Approx(4));
  CHECK(m->ceilings.compute[1].name == "fp32 vector 32 B");
  CHECK(m->ceilings.compute[1].gflops == doctest::Approx(32));
  CHECK(m->ceilings.compute[2].precision == "fp64");
  CHECK(m->ceilings.compute[2].gflops == doctest::Approx(16));
  REQUIRE(m->ceilings.memory.size() == 2);  // the read stream's levels
  CHECK(m->ceilings.memory[0].level == "L1");
  CHECK(m->ceilings.memory[0].size_bytes == 16384);
  CHECK(m->ceilings.memory[0].gbytes_s == doctest::Approx(80));
  CHECK(m->ceilings.memory[1].level == "DRAM");
  CHECK(m->ceilings.memory[1].gbytes_s == doctest::Approx(10));
  REQUIRE(m->streams.size() == 4);
  CHECK(m->streams[3].stream == "triad");
  REQUIRE(m->streams[3].points.size() == 1);
  CHECK(m->streams[3].points[0].bytes == 24576);  // three arrays of 1024 doubles
  CHECK(m->streams[3].points[0].gbytes_s == doctest::Approx(60));
  CHECK(m->stream_levels[1].empty());  // no write measured

  // The database's rows and back: the model again.
  const std::vector<CeilingRow> rows = CeilingRowsOf(*m, {"f1", "b1"}, 5);
  CHECK(rows.size() == 3 + 2 + 2 + 1);
  CHECK(rows.back().name == "triad memory");
  // Each row names the run that measured it.
  for (const CeilingRow& r : rows) CHECK(r.run_id == (r.kind == "compute" ? "f1" : "b1"));
  const Ceilings back = CeilingsFromRows(rows);
  CHECK(back.compute.size() == 3);
  REQUIRE(back.memory.size() == 2);
  CHECK(back.memory[0].size_bytes == 16384);

  // A variant without its work, or without the microkernel's parameters: an error naming it.
  flops.variants[0].work = {};
  CHECK(CeilingsOf(flops, bw).status().message() == "s declares no flops");
  flops.variants[0].work = {1.0, 0.0};
  flops.variants[0].params = {{"PREC", "32"}};
  CHECK(CeilingsOf(flops, bw).status().message() == "s has no WIDTH");
}

TEST_CASE("read's curve has the faster of its two loops at each working set") {
  RunReport flops;
  flops.best_by = kKernelTime;
  flops.variants = {Variant("v", {{"PREC", "32"}, {"WIDTH", "32"}}, {}, 1, {32e9, 0.0})};
  RunReport bw;
  bw.best_by = kKernelTime;
  // The plain loop (OP 0) is the faster at 8 KiB, the prefetching one (OP 4) at 2 MiB, and at
  // 1 MiB only the plain one ran; GB/s of each:
  const auto read = [&](const char* op, int n, double gbs) {
    const double bytes = 8.0 * n * 100;
    bw.variants.push_back(Variant(std::string("r") + op, {{"OP", op}}, {{"N", std::to_string(n)}},
                                  bytes / (gbs * 1e9), {std::nullopt, bytes}));
  };
  read("0", 1024, 80);
  read("4", 1024, 70);
  read("4", 262144, 12);
  read("0", 262144, 9);
  read("0", 131072, 11);
  auto m = CeilingsOf(flops, bw);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  REQUIRE(m->streams.size() == 4);  // OP 4 is no stream of its own
  const std::vector<BandwidthPoint>& points = m->streams[0].points;
  REQUIRE(points.size() == 3);
  CHECK(points[0].bytes == 8192);
  CHECK(points[0].gbytes_s == doctest::Approx(80));
  CHECK(points[1].bytes == 1048576);
  CHECK(points[1].gbytes_s == doctest::Approx(11));
  CHECK(points[2].bytes == 2097152);  // one array, as OP 0's
  CHECK(points[2].gbytes_s == doctest::Approx(12));
  REQUIRE(m->ceilings.memory.size() >= 1);
  CHECK(m->ceilings.memory.front().gbytes_s == doctest::Approx(80));

  // An OP the microkernel does not have: an error naming the variant.
  read("5", 1024, 80);
  CHECK(CeilingsOf(flops, bw).status().message() == "r5: OP 5");
}

TEST_CASE("the ceilings of runs with threads, or with no variant that ran to the end") {
  RunReport flops;
  flops.best_by = kKernelTime;
  flops.run_id = "f";
  flops.variants = {
      Variant("s", {{"PREC", "32"}, {"WIDTH", "0"}}, {{"THREADS", "2"}}, 1, {8e9, 0.0})};
  RunReport bw;
  bw.best_by = kKernelTime;
  bw.run_id = "b";
  // Two threads, each over three arrays of 1024 doubles: a working set of 48 KiB.
  bw.variants = {Variant("t", {{"OP", "3"}}, {{"N", "1024"}, {"THREADS", "2"}}, 1, {0.0, 120e9})};
  auto m = CeilingsOf(flops, bw);
  REQUIRE_MESSAGE(m.ok(), m.status().message());
  CHECK(m->ceilings.compute[0].gflops == doctest::Approx(8));
  REQUIRE(m->streams[3].points.size() == 1);
  CHECK(m->streams[3].points[0].bytes == 2 * 3 * 1024 * 8);
  CHECK(m->streams[3].points[0].gbytes_s == doctest::Approx(120));

  bw.variants[0].valid = 2;  // a repetition failed (roofline: THREADS=8, but ... 2 CPUs)
  CHECK(CeilingsOf(flops, bw).status().message() ==
        "no variant of roofline_bandwidth ran to the end (khost report b says why)");
  flops.variants[0].valid = 0;
  CHECK(CeilingsOf(flops, bw).status().message() ==
        "no variant of roofline_flops ran to the end (khost report f says why)");
}

}  // namespace
}  // namespace ktune::host
