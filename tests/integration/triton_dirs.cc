#include "tests/integration/triton_dirs.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "host/util/subprocess.h"

namespace ktune::test {
namespace fs = std::filesystem;
using host::RunTool;
using host::ToolRun;

namespace {

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

}  // namespace

void MakeTritonConfig(const std::string& dir, int bm, int bn, int bk) {
  const std::string kernel_c = dir + "/kernel.c";
  Write(kernel_c,
        "void matmul_kernel(const float* a, const float* b, float* c, int M, int N, int K,\n"
        "                   int pid_m, int pid_n) {\n"
        "  for (int i = pid_m * BM; i < (pid_m + 1) * BM && i < M; ++i)\n"
        "    for (int j = pid_n * BN; j < (pid_n + 1) * BN && j < N; ++j) {\n"
        "      float acc = 0;\n"
        "      for (int k0 = 0; k0 < K; k0 += BK)\n"
        "        for (int k = k0; k < k0 + BK && k < K; ++k) acc += a[i * K + k] * b[k * N + j];\n"
        "      c[i * N + j] = acc;\n"
        "    }\n"
        "}\n");
  ToolRun ir = RunTool({"clang-19", "-S", "-emit-llvm", "-O1", "-DBM=" + std::to_string(bm),
                        "-DBN=" + std::to_string(bn), "-DBK=" + std::to_string(bk), kernel_c, "-o",
                        dir + "/matmul_kernel.llir"})
                   .value();
  REQUIRE_MESSAGE(ir.exit_code == 0, ir.output);
  fs::remove(kernel_c);
  Write(dir + "/matmul_kernel_launcher.cpp",
        "extern const int matmul_BLOCK_SIZE_M;\n"
        "extern const int matmul_BLOCK_SIZE_N;\n"
        "extern \"C\" void matmul_kernel(const float*, const float*, float*, int, int, int, int,\n"
        "                              int);\n"
        "void matmul_kernel_launcher(const float* a, const float* b, float* c, int M, int N,\n"
        "                            int K) {\n"
        "  for (int pm = 0; pm * matmul_BLOCK_SIZE_M < M; ++pm)\n"
        "    for (int pn = 0; pn * matmul_BLOCK_SIZE_N < N; ++pn) matmul_kernel(a, b, c, M, N, K, "
        "pm, pn);\n"
        "}\n");
  Write(dir + "/blk_constants.json", "{\"BLOCK_SIZE_M\": " + std::to_string(bm) +
                                         ", \"BLOCK_SIZE_N\": " + std::to_string(bn) +
                                         ", \"BLOCK_SIZE_K\": " + std::to_string(bk) + "}\n");
}

}  // namespace ktune::test
