/* The matmul_vec variant's main, in the seed's shape:
 *
 *   VL256_matmul_vec_<BM>_<BN>_<BK>_<G>_<U>_<LMUL>_g_static_O2.elf MxNxKxRUN_COUNT
 *
 * reads A (test data _1) and B (_2), runs the kernel RUN_COUNT times, prints the seed's timing
 * line, then checks C against the golden _3: "out OK" (exit 0) or "out NOT OK" (exit 1). */
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"

/* The seed's launcher convention: the variant's constants, defined in its constants.c. */
extern const int matmul_vec_BLOCK_SIZE_M, matmul_vec_BLOCK_SIZE_N, matmul_vec_BLOCK_SIZE_K,
    matmul_vec_GROUP_SIZE_M, matmul_vec_UNROLL, matmul_vec_LMUL;

void matmul_vec_kernel(const float* restrict a, const float* restrict b, float* restrict c, int M,
                       int N, int K);

int main(int argc, char** argv) {
  long s[4];
  kt_parse_shape(argc, argv, 4, s, "MxNxKxRUN_COUNT");
  const int M = (int)s[0], N = (int)s[1], K = (int)s[2], runs = (int)s[3];
  printf(
      "matmul_vec %dx%dx%d, BLOCK_SIZE_M=%d BLOCK_SIZE_N=%d BLOCK_SIZE_K=%d GROUP_SIZE_M=%d "
      "UNROLL=%d LMUL=%d\n",
      M, N, K, matmul_vec_BLOCK_SIZE_M, matmul_vec_BLOCK_SIZE_N, matmul_vec_BLOCK_SIZE_K,
      matmul_vec_GROUP_SIZE_M, matmul_vec_UNROLL, matmul_vec_LMUL);
  float* a = kt_load_f32("matmul_vec", 1, M, K);
  float* b = kt_load_f32("matmul_vec", 2, K, N);
  float* c = malloc(sizeof(float) * (size_t)M * (size_t)N + 1);
  const double start = kt_now();
  for (int r = 0; r < runs; ++r) matmul_vec_kernel(a, b, c, M, N, K);
  kt_report_time(runs > 0 ? (kt_now() - start) / runs : 0);
  return kt_check_f32("matmul_vec", 0, 3, c, M, N);
}
