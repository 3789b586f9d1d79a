/* Example kernel for the demo sweep: a blocked single-precision matmul in the seed's shape.
 *
 *   matmul.elf MxNxKxRUN_COUNT
 *
 * reads A (MxK) and B (KxN) from matmul/run/test_data/matrix_<rows>x<cols>_<idx>.txt (the seed's
 * TXT format: "rows cols" on the first line, then whitespace-separated floats; paths relative to
 * the directory holding matmul/), runs the kernel RUN_COUNT times, prints
 * "Running C Kernel Average Time: <s> s", checks C against a naive reference and prints
 * "out OK" (exit 0) or "out NOT OK" (exit 1).
 *
 * BLOCK_SIZE_M/N/K are compile-time constants: one ELF per configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BLOCK_SIZE_M
#define BLOCK_SIZE_M 16
#endif
#ifndef BLOCK_SIZE_N
#define BLOCK_SIZE_N 16
#endif
#ifndef BLOCK_SIZE_K
#define BLOCK_SIZE_K 16
#endif

static float* load(int idx, int rows, int cols) {
  char path[256];
  snprintf(path, sizeof path, "matmul/run/test_data/matrix_%dx%d_%d.txt", rows, cols, idx);
  FILE* f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(2);
  }
  int r, c;
  if (fscanf(f, "%d %d", &r, &c) != 2 || r != rows || c != cols) {
    fprintf(stderr, "%s: expected %dx%d\n", path, rows, cols);
    exit(2);
  }
  float* m = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
  for (long i = 0; i < (long)rows * cols; ++i) {
    if (fscanf(f, "%f", &m[i]) != 1) {
      fprintf(stderr, "%s: short read\n", path);
      exit(2);
    }
  }
  fclose(f);
  return m;
}

static void kernel(const float* a, const float* b, float* c, int M, int N, int K) {
  memset(c, 0, sizeof(float) * (size_t)M * (size_t)N);
  for (int i0 = 0; i0 < M; i0 += BLOCK_SIZE_M)
    for (int k0 = 0; k0 < K; k0 += BLOCK_SIZE_K)
      for (int j0 = 0; j0 < N; j0 += BLOCK_SIZE_N) {
        const int i1 = i0 + BLOCK_SIZE_M < M ? i0 + BLOCK_SIZE_M : M;
        const int k1 = k0 + BLOCK_SIZE_K < K ? k0 + BLOCK_SIZE_K : K;
        const int j1 = j0 + BLOCK_SIZE_N < N ? j0 + BLOCK_SIZE_N : N;
        for (int i = i0; i < i1; ++i)
          for (int k = k0; k < k1; ++k) {
            const float aik = a[(long)i * K + k];
            for (int j = j0; j < j1; ++j) c[(long)i * N + j] += aik * b[(long)k * N + j];
          }
      }
}

int main(int argc, char** argv) {
  int M = 64, N = 64, K = 64, runs = 1;
  if (argc > 1 && sscanf(argv[1], "%dx%dx%dx%d", &M, &N, &K, &runs) != 4) {
    fprintf(stderr, "usage: %s MxNxKxRUN_COUNT\n", argv[0]);
    return 2;
  }
  float* a = load(0, M, K);
  float* b = load(1, K, N);
  float* c = malloc(sizeof(float) * (size_t)M * (size_t)N);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < runs; ++r) kernel(a, b, c, M, N, K);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("Running C Kernel Average Time: %g s\n", secs / runs);

  int bad = 0;
  for (int i = 0; i < M && !bad; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += (double)a[(long)i * K + k] * b[(long)k * N + j];
      if (fabs(ref - c[(long)i * N + j]) > 1e-3 * (1 + fabs(ref))) {
        bad = 1;
        break;
      }
    }
  printf(bad ? "out NOT OK\n" : "out OK\n");
  return bad;
}
