/* The main of roofline_flops (khost roofline): ITERSxRUN_COUNT. Runs the kernel RUN_COUNT times,
 * prints the seed's timing line, then checks every lane of every chain against what the
 * alternation gives: "out OK" (exit 0) or "out NOT OK" (exit 1). */
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"

#if PREC == 32
typedef float real;
#else
typedef double real;
#endif
#if WIDTH > 0
typedef real vec __attribute__((vector_size(WIDTH)));
#define LANES (WIDTH * 8 / PREC)
#else
typedef real vec;
#define LANES 1
#endif
#if WIDTH >= 256
#define CHAINS 2
#elif WIDTH >= 128
#define CHAINS 6
#else
#define CHAINS 8
#endif

void roofline_flops_kernel(vec* acc, real m, real a, long iters);

int main(int argc, char** argv) {
  long s[2];
  kt_parse_shape(argc, argv, 2, s, "ITERSxRUN_COUNT");
  const long iters = s[0];
  const int runs = (int)s[1];
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    fprintf(stderr, "roofline_flops: this CPU has no AVX2 with FMA\n");
    return 2;
  }
#endif
  printf("roofline_flops PREC=%d WIDTH=%d: %d chains of %d lanes, %ld iterations\n", PREC, WIDTH,
         CHAINS, LANES, iters);
  vec acc[CHAINS];
  real* lane = (real*)acc;
  for (int i = 0; i < CHAINS * LANES; ++i) lane[i] = (real)(i % 7) * (real)0.25;
  /* Runtime values, so the compiler cannot fold the chains. */
  volatile real m = -1, a = 1;
  const double start = kt_now();
  for (int r = 0; r < runs; ++r) roofline_flops_kernel(acc, m, a, iters);
  kt_report_time(runs > 0 ? (kt_now() - start) / runs : 0);
  /* Each call applies x -> 1 - x iters times: the identity when the total is even. */
  const int flipped = (int)(((long long)iters * runs) & 1);
  for (int i = 0; i < CHAINS * LANES; ++i) {
    const real start_value = (real)(i % 7) * (real)0.25;
    const real want = flipped ? 1 - start_value : start_value;
    if (lane[i] != want) {
      printf("out NOT OK\n");
      fprintf(stderr, "lane %d: %g, want %g\n", i, (double)lane[i], (double)want);
      return 1;
    }
  }
  printf("out OK\n");
  return 0;
}
