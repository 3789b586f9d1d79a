/* matmul_kernel: C (M x N) = A (M x K) x B (K x N), float32, row-major.
 *
 * The tile loop mirrors Triton's tutorial matmul: program ids walk BLOCK_SIZE_M x BLOCK_SIZE_N
 * tiles of C in groups of GROUP_SIZE_M tile rows; each tile accumulates over BLOCK_SIZE_K slices
 * of K in a fixed-size local accumulator, whose inner loop over BLOCK_SIZE_N columns clang turns
 * into RVV code (vsetvli) at -O2. Block sizes are compile-time constants (-D). */
#include <string.h>

#ifndef BLOCK_SIZE_M
#error "BLOCK_SIZE_M comes from khost tune (-DBLOCK_SIZE_M=...)"
#endif

static inline int min_int(int a, int b) {
  return a < b ? a : b;
}

void matmul_kernel(const float* restrict a, const float* restrict b, float* restrict c, int M,
                   int N, int K) {
  const int num_pid_m = (M + BLOCK_SIZE_M - 1) / BLOCK_SIZE_M;
  const int num_pid_n = (N + BLOCK_SIZE_N - 1) / BLOCK_SIZE_N;
  const int num_pid_in_group = GROUP_SIZE_M * num_pid_n;
  float acc[BLOCK_SIZE_M][BLOCK_SIZE_N];
  for (int pid = 0; pid < num_pid_m * num_pid_n; ++pid) {
    const int group_id = pid / num_pid_in_group;
    const int first_pid_m = group_id * GROUP_SIZE_M;
    const int group_size_m = min_int(num_pid_m - first_pid_m, GROUP_SIZE_M);
    const int pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
    const int pid_n = (pid % num_pid_in_group) / group_size_m;
    const int i0 = pid_m * BLOCK_SIZE_M, j0 = pid_n * BLOCK_SIZE_N;
    const int rows = min_int(BLOCK_SIZE_M, M - i0), cols = min_int(BLOCK_SIZE_N, N - j0);
    memset(acc, 0, sizeof acc);
    for (int k0 = 0; k0 < K; k0 += BLOCK_SIZE_K) {
      const int depth = min_int(BLOCK_SIZE_K, K - k0);
      for (int i = 0; i < rows; ++i) {
        const float* arow = a + (long)(i0 + i) * K + k0;
        for (int k = 0; k < depth; ++k) {
          const float aik = arow[k];
          const float* brow = b + (long)(k0 + k) * N + j0;
          if (cols == BLOCK_SIZE_N) {
            for (int j = 0; j < BLOCK_SIZE_N; ++j) acc[i][j] += aik * brow[j];
          } else {
            for (int j = 0; j < cols; ++j) acc[i][j] += aik * brow[j];
          }
        }
      }
    }
    for (int i = 0; i < rows; ++i)
      memcpy(c + (long)(i0 + i) * N + j0, acc[i], sizeof(float) * cols);
  }
}
