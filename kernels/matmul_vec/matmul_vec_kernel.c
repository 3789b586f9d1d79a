/* matmul_vec_kernel: C (M x N) = A (M x K) x B (K x N), float32, row-major, register-tiled.
 *
 * The tile order is matmul's (Triton's tutorial: groups of GROUP_SIZE_M tile rows). A tile's
 * accumulator is BLOCK_SIZE_M rows of BLOCK_SIZE_N / VEC_FLOATS vectors, a vector being LMUL
 * registers of 256 bits (GCC/clang vector extensions: on rv64gcv_zvl256b one vector is an RVV
 * register group of LMUL registers, elsewhere the compiler splits it into its own registers). The
 * k loop over a BLOCK_SIZE_K slice is unrolled UNROLL times. Every parameter is a compile-time
 * constant (-D); the spec's constraints keep tiles whole and rows whole vectors. */
#include <string.h>

#ifndef BLOCK_SIZE_M
#error "BLOCK_SIZE_M comes from khost tune (-DBLOCK_SIZE_M=...)"
#endif

#define VEC_FLOATS (8 * LMUL)
#define ROW_VECS (BLOCK_SIZE_N / VEC_FLOATS)
#define PRAGMA(x) _Pragma(#x)
#define UNROLLED(n) PRAGMA(GCC unroll n)

typedef float vfloat __attribute__((vector_size(VEC_FLOATS * sizeof(float))));

static inline int min_int(int a, int b) {
  return a < b ? a : b;
}

static inline vfloat load(const float* p) {
  vfloat v;
  memcpy(&v, p, sizeof v);
  return v;
}

void matmul_vec_kernel(const float* restrict a, const float* restrict b, float* restrict c, int M,
                       int N, int K) {
  const int num_pid_m = M / BLOCK_SIZE_M, num_pid_n = N / BLOCK_SIZE_N;
  const int num_pid_in_group = GROUP_SIZE_M * num_pid_n;
  vfloat acc[BLOCK_SIZE_M][ROW_VECS];
  for (int pid = 0; pid < num_pid_m * num_pid_n; ++pid) {
    const int group_id = pid / num_pid_in_group;
    const int first_pid_m = group_id * GROUP_SIZE_M;
    const int group_size_m = min_int(num_pid_m - first_pid_m, GROUP_SIZE_M);
    const int pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
    const int pid_n = (pid % num_pid_in_group) / group_size_m;
    const int i0 = pid_m * BLOCK_SIZE_M, j0 = pid_n * BLOCK_SIZE_N;
    memset(acc, 0, sizeof acc);
    for (int k0 = 0; k0 < K; k0 += BLOCK_SIZE_K) {
      for (int i = 0; i < BLOCK_SIZE_M; ++i) {
        const float* arow = a + (long)(i0 + i) * K + k0;
        UNROLLED(UNROLL)
        for (int k = 0; k < BLOCK_SIZE_K; ++k) {
          const float aik = arow[k];
          const float* brow = b + (long)(k0 + k) * N + j0;
          for (int v = 0; v < ROW_VECS; ++v) acc[i][v] += aik * load(brow + v * VEC_FLOATS);
        }
      }
    }
    for (int i = 0; i < BLOCK_SIZE_M; ++i)
      memcpy(c + (long)(i0 + i) * N + j0, acc[i], sizeof acc[i]);
  }
}
