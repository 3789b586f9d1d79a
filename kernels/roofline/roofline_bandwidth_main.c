/* The main of roofline_bandwidth (khost roofline): NxSWEEPSxRUN_COUNT, N a multiple of 16. Fills
 * the arrays, runs the kernel RUN_COUNT times, prints the seed's timing line, then checks what
 * the stream left, exactly (small integers and halves, which doubles hold without rounding):
 * "out OK" (exit 0) or "out NOT OK" (exit 1). */
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"

double roofline_bandwidth_kernel(double* restrict a, double* restrict b, const double* restrict c,
                                 long n, long sweeps, double s);

static int fail(const char* what, long i, double got, double want) {
  printf("out NOT OK\n");
  fprintf(stderr, "%s[%ld] = %g, want %g\n", what, i, got, want);
  return 1;
}

int main(int argc, char** argv) {
  long v[3];
  kt_parse_shape(argc, argv, 3, v, "NxSWEEPSxRUN_COUNT");
  const long n = v[0], sweeps = v[1];
  const int runs = (int)v[2];
  if (n % 16 != 0) {
    fprintf(stderr, "roofline_bandwidth: N (%ld) must be a multiple of 16\n", n);
    return 2;
  }
  printf("roofline_bandwidth OP=%d: %ld doubles per array, %ld sweeps\n", OP, n, sweeps);
  double* a = aligned_alloc(64, (size_t)n * 8 + 64);
  double* b = aligned_alloc(64, (size_t)n * 8 + 64);
  double* c = aligned_alloc(64, (size_t)n * 8 + 64);
  if (!a || !b || !c) {
    fprintf(stderr, "roofline_bandwidth: out of memory\n");
    return 2;
  }
  for (long i = 0; i < n; ++i) {
    a[i] = (double)(i % 3);
    b[i] = (double)(i % 5);
    c[i] = 2;
  }
  volatile double s = 0.5; /* a runtime value: the compiler cannot fold the streams */
  double sum = 0;
  const double start = kt_now();
  for (int r = 0; r < runs; ++r) sum += roofline_bandwidth_kernel(a, b, c, n, sweeps, s);
  kt_report_time(runs > 0 ? (kt_now() - start) / runs : 0);
#if OP == 0
  /* Each sweep sums n / 3 runs of 0 + 1 + 2, and what is left over. */
  double once = 0;
  for (long i = 0; i < n; ++i) once += (double)(i % 3);
  const double want = once * (double)sweeps * runs;
  if (sum != want) return fail("sum", 0, sum, want);
#else
  for (long i = 0; i < n; ++i) {
#if OP == 1
    if (runs > 0 && a[i] != 0.5) return fail("a", i, a[i], 0.5);
#elif OP == 2
    if (runs > 0 && b[i] != (double)(i % 3)) return fail("b", i, b[i], (double)(i % 3));
#elif OP == 3
    if (runs > 0 && a[i] != (double)(i % 5) + 1) return fail("a", i, a[i], (double)(i % 5) + 1);
#endif
  }
#endif
  printf("out OK\n");
  return 0;
}
