// What a patched Triton-CPU autotuner leaves per configuration (docs/KSPEC.md, --triton), made
// for the tests with clang-19 for this host: the matmul tile function as LLVM IR (host triple), a
// C++ launcher `matmul_kernel_launcher(a, b, c, M, N, K)` walking the program ids with the seed's
// `extern const int` constants, and blk_constants.json.
#pragma once

#include <string>

namespace ktune::test {

// Writes <dir>/{matmul_kernel.llir, matmul_kernel_launcher.cpp, blk_constants.json} for the
// configuration BLOCK_SIZE_M=bm BLOCK_SIZE_N=bn BLOCK_SIZE_K=bk.
void MakeTritonConfig(const std::string& dir, int bm, int bn, int bk);

}  // namespace ktune::test
