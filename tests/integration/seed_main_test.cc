// A user's own main, written to the seed's conventions rather than ktune's loader: it reads
// <kernel>/run/test_data/matrix_<rows>x<cols>_<index>.txt with its own getDB (inputs 1 and 2,
// expected output 3), checks with an absolute threshold and prints the seed's "Average Time" line
// on stderr. Built by khost tune from a C kernel and from Triton-CPU configuration directories,
// checked (natively and under qemu-riscv64) and measured by khost run, at a non-square shape so
// that a numbering mistake cannot pass. Also: run directories an earlier khost tune numbered
// from 0, and data: auto for mains that read TXT only.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/fs.h"
#include "common/results.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"
#include "tests/integration/triton_dirs.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

// The seed-style main: nothing of ktune's but the launcher convention (extern const int
// <kernel>_<PARAM>, defined in the variant's constants.c).
constexpr const char* kSeedMain = R"(#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>
#include <chrono>

extern const int matmul_BLOCK_SIZE_M, matmul_BLOCK_SIZE_N, matmul_BLOCK_SIZE_K;
// A Triton launcher is C++; a kernel written in C has C linkage.
#ifdef SEED_C_KERNEL
extern "C"
#endif
void matmul_kernel_launcher(const float* a, const float* b, float* c, int M, int N, int K);

// The seed's reader: <kernel>/run/test_data/matrix_<shape>_<index>.txt, "rows cols" then values.
static std::vector<float> getDB(const std::string& kernel, const std::string& shape, int index,
                                long rows, long cols) {
  const std::string path =
      kernel + "/run/test_data/matrix_" + shape + "_" + std::to_string(index) + ".txt";
  std::ifstream in(path);
  if (!in) {
    std::cerr << "Cannot open file " << path << std::endl;
    std::exit(1);
  }
  long r = 0, c = 0;
  in >> r >> c;
  if (r != rows || c != cols) {
    std::cerr << path << " is " << r << "x" << c << std::endl;
    std::exit(1);
  }
  std::vector<float> v(rows * cols);
  for (float& x : v) in >> x;
  return v;
}

int main(int argc, char** argv) {
  int M = 0, N = 0, K = 0, runs = 0;
  if (argc < 2 || std::sscanf(argv[1], "%dx%dx%dx%d", &M, &N, &K, &runs) != 4) return 2;
  const std::string mk = std::to_string(M) + "x" + std::to_string(K);
  const std::string kn = std::to_string(K) + "x" + std::to_string(N);
  const std::string mn = std::to_string(M) + "x" + std::to_string(N);
  std::vector<float> a = getDB("matmul", mk, 1, M, K), b = getDB("matmul", kn, 2, K, N);
  std::vector<float> expected = getDB("matmul", mn, 3, M, N), c(M * N);
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < runs; ++r) matmul_kernel_launcher(a.data(), b.data(), c.data(), M, N, K);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "Running Triton Kernel Average Time: %.9f s\n", seconds / runs);
  bool ok = true;
  for (int i = 0; i < M * N; ++i) ok = ok && std::fabs(c[i] - expected[i]) <= 1e-3f;
  std::printf("BLOCK_SIZE_M=%d BLOCK_SIZE_N=%d BLOCK_SIZE_K=%d\n", matmul_BLOCK_SIZE_M,
              matmul_BLOCK_SIZE_N, matmul_BLOCK_SIZE_K);
  std::puts(ok ? "out OK" : "out NOT OK");
  return 0;
}
)";

// The C kernel for the same main: BLOCK_SIZE_M x BLOCK_SIZE_N tiles.
constexpr const char* kCKernel = R"(void matmul_kernel_launcher(const float* restrict a,
                            const float* restrict b, float* restrict c, int M, int N, int K) {
  for (int i0 = 0; i0 < M; i0 += BLOCK_SIZE_M)
    for (int j0 = 0; j0 < N; j0 += BLOCK_SIZE_N)
      for (int i = i0; i < i0 + BLOCK_SIZE_M && i < M; ++i)
        for (int j = j0; j < j0 + BLOCK_SIZE_N && j < N; ++j) {
          float acc = 0;
          for (int k = 0; k < K; ++k) acc += a[i * K + k] * b[k * N + j];
          c[i * N + j] = acc;
        }
}
)";

struct SeedKernel {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  std::string spec = tmp.path() + "/spec/matmul.kspec";
  std::string data = root + "/matmul/run/test_data/";

  enum Kernel { kC, kTriton };
  // M=24 N=20 K=12: A 24x12 (_1), B 12x20 (_2), C 24x20 (_3), no two alike. kC: the spec builds
  // kernel.c; kTriton: it is built with --triton directories only.
  explicit SeedKernel(Kernel kernel, const std::string& shape = "M=24 N=20 K=12") {
    Write(tmp.path() + "/spec/main.cpp", kSeedMain);
    Write(tmp.path() + "/spec/kernel.c", kCKernel);
    Write(spec, "kernel: matmul\nmain: main.cpp\n" +
                    std::string(kernel == kC ? "kernel_source: kernel.c\ncflags: -DSEED_C_KERNEL\n"
                                             : "") +
                    "param: BLOCK_SIZE_M = 4 8\nparam: BLOCK_SIZE_N = 4\nparam: BLOCK_SIZE_K = 4\n"
                    "shape: " +
                    shape +
                    "\nargs: {M}x{N}x{K}x2\n"
                    "input: A float32 [M, K] uniform(-1, 1) seed=3\n"
                    "input: B float32 [K, N] uniform(-1, 1) seed=4\n"
                    "output: C float32 [M, N] atol=1e-4 rtol=1e-4\nreference: matmul\n");
  }
  static void Write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
  }
  test::CommandResult Khost(std::vector<std::string> args) {
    return test::RunKhost(args, tmp.path());
  }
  test::CommandResult Tune(const std::string& toolchain, const std::string& triton = "") {
    std::vector<std::string> args = {"tune",   spec, "--toolchain", toolchain,
                                     "--root", root, "--check"};
    if (!triton.empty()) args.insert(args.end(), {"--triton", triton});
    return Khost(args);
  }
  // khost run on a local agent: every repetition must be valid, with the kernel's own time.
  void RunAndCheckRows(test::AgentProcess& agent, size_t variants) {
    auto run = Khost({"run", "matmul", "--root", root, "--reps", "2", "--warmup", "0", "--events",
                      "task-clock", "--agent", agent.address().ToString()});
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    const std::vector<RepetitionRow> rows = test::RowsOf(test::OnlyResults(root + "/matmul/run"));
    REQUIRE(rows.size() == variants * 2);
    for (const RepetitionRow& r : rows) {
      CAPTURE(r.variant);
      CHECK(r.valid);
      CHECK(r.outcome.ToString() == "exit:0");
      const MeasuredValue* t = r.Find(kKernelTime);
      REQUIRE(t != nullptr);
      CHECK(t->status == ValueStatus::kOk);  // the "Average Time" line, read from stderr
    }
  }
};

using test::Contains;

TEST_CASE("a seed-style main reads test data numbered from 1: C kernel, checked and measured") {
  SeedKernel k(SeedKernel::kC);
  auto tuned = k.Tune("native");
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  CHECK(Contains(tuned.out, "test data: A _1, B _2, golden C _3 (TXT)"));
  CHECK(Contains(tuned.out, "check: 2 of 2 variants print 'out OK' and exit 0"));
  auto rvv = k.Tune("rvv-clang19");  // the C kernel for the board, checked under qemu-riscv64
  REQUIRE_MESSAGE(rvv.exit_code == 0, rvv.err);
  CHECK(Contains(rvv.out, "check: 2 of 2 variants print 'out OK' and exit 0 under qemu-riscv64"));
  tuned = k.Tune("native");  // back to this machine's build, for the local agent
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  for (const std::string name :
       {"matrix_24x12_1.txt", "matrix_12x20_2.txt", "matrix_24x20_3.txt"}) {
    CHECK(fs::exists(k.data + name));
  }
  size_t files = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(k.data)) ++files;
  CHECK(files == 3);
  test::AgentProcess agent(k.tmp.path() + "/store");
  k.RunAndCheckRows(agent, 2);
}

TEST_CASE("a seed-style main with Triton-CPU variants: checked under qemu-riscv64, measured") {
  SeedKernel k(SeedKernel::kTriton);
  const std::string triton = k.tmp.path() + "/triton";
  test::MakeTritonConfig(triton + "/matmul_0", 4, 4, 4);
  test::MakeTritonConfig(triton + "/matmul_1", 8, 4, 4);
  for (const std::string toolchain : {"rvv-clang19", "native"}) {
    CAPTURE(toolchain);
    auto tuned = k.Tune(toolchain, triton);
    REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
    CHECK(Contains(tuned.out, "2 variants (2 Triton configurations)"));
    CHECK(Contains(tuned.out, "check: 2 of 2 variants print 'out OK' and exit 0"));
  }
  // The native build is the one in configs.json now; the agent measures it on this machine.
  test::AgentProcess agent(k.tmp.path() + "/store");
  k.RunAndCheckRows(agent, 2);
}

TEST_CASE("test data numbered from 0 by an earlier khost tune: refused, then rewritten by tune") {
  SeedKernel k(SeedKernel::kC);
  auto tuned = k.Tune("native");
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  // The layout an earlier khost tune wrote: A _0, B _1, golden C _2.
  fs::rename(k.data + "matrix_24x12_1.txt", k.data + "matrix_24x12_0.txt");
  fs::rename(k.data + "matrix_12x20_2.txt", k.data + "matrix_12x20_1.txt");
  fs::rename(k.data + "matrix_24x20_3.txt", k.data + "matrix_24x20_2.txt");
  test::AgentProcess agent(k.tmp.path() + "/store");
  for (const std::string command : {"push", "run"}) {
    CAPTURE(command);
    auto r = k.Khost({command, "matmul", "--root", k.root, "--agent", agent.address().ToString()});
    CHECK(r.exit_code == 1);
    REQUIRE(r.ErrLines().size() == 1);
    CHECK(Contains(r.err,
                   "matmul/run/test_data holds test data numbered from 0 "
                   "(matrix_24x12_0.txt), as earlier versions of khost tune wrote it"));
    CHECK(Contains(r.err, "rerun `khost tune matmul` to rewrite the test data and rebuild"));
  }
  CHECK(!fs::exists(k.root + "/matmul/run/results"));  // nothing measured
  auto again = k.Tune("native");
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(Contains(again.out, "removed 3 test data files an earlier khost tune numbered from 0"));
  CHECK(Contains(again.out, "check: 2 of 2 variants print 'out OK' and exit 0"));
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(k.data)) {
    CAPTURE(f.path());
    CHECK(f.path().filename().string().find("_0.") == std::string::npos);
    ++files;
  }
  CHECK(files == 3);
  k.RunAndCheckRows(agent, 2);
}

TEST_CASE("data: auto gives a main with its own reader TXT above the binary threshold too") {
  // A is 1024 x 1025 = 1,049,600 elements, past 2^20: ktune's loader would get it in binary.
  SeedKernel k(SeedKernel::kC, "M=1024 N=1 K=1025");
  auto tuned = k.Tune("native");
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  CHECK(Contains(tuned.out, "test data: A _1, B _2, golden C _3 (TXT)"));
  CHECK(Contains(tuned.out, "check: 2 of 2 variants print 'out OK' and exit 0"));
  CHECK(fs::exists(k.data + "matrix_1024x1025_1.txt"));
  CHECK(!fs::exists(k.data + "matrix_1024x1025_1.bin"));
}

}  // namespace
}  // namespace ktune
