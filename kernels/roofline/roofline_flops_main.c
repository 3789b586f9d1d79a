/* The main of roofline_flops (khost roofline): ITERSxTHREADSxRUN_COUNT. Runs the kernel RUN_COUNT
 * times on each of THREADS threads (roofline_threads.h), each with chains of its own, prints the
 * seed's timing line, then checks every lane of every chain against what the alternation gives:
 * "out OK" (exit 0) or "out NOT OK" (exit 1). */
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"
#include "roofline_flops.h"
#include "roofline_threads.h"

struct job {
  vec (*acc)[CHAINS]; /* each thread's chains */
  long iters;
  int runs;
};

static void work(int index, void* arg) {
  const struct job* j = arg;
  /* Runtime values, so the compiler cannot fold the chains. */
  volatile real m = -1, a = 1;
  for (int r = 0; r < j->runs; ++r) roofline_flops_kernel(j->acc[index], m, a, j->iters);
}

int main(int argc, char** argv) {
  long s[3];
  kt_parse_shape(argc, argv, 3, s, "ITERSxTHREADSxRUN_COUNT");
  const long iters = s[0];
  const int threads = (int)s[1], runs = (int)s[2];
  if (threads < 1) {
    fprintf(stderr, "roofline_flops: THREADS (%d) must be 1 or more\n", threads);
    return 2;
  }
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    fprintf(stderr, "roofline_flops: this CPU has no AVX2 with FMA\n");
    return 2;
  }
#endif
  printf("roofline_flops PREC=%d WIDTH=%d: %d threads of %d chains of %d lanes, %ld iterations\n",
         PREC, WIDTH, threads, CHAINS, LANES, iters);
  const size_t row = sizeof(vec[CHAINS]);
  const size_t align = _Alignof(vec) > 64 ? _Alignof(vec) : 64;
  struct job j = {aligned_alloc(align, (row * (size_t)threads + align - 1) / align * align), iters,
                  runs};
  if (!j.acc) {
    fprintf(stderr, "roofline_flops: out of memory\n");
    return 2;
  }
  real* lane = (real*)j.acc;
  const int lanes = threads * CHAINS * LANES;
  for (int i = 0; i < lanes; ++i) lane[i] = (real)(i % 7) * (real)0.25;
  const double seconds = kt_run_threads(threads, NULL, work, &j);
  kt_report_time(runs > 0 ? seconds / runs : 0);
  /* Each call applies x -> 1 - x iters times: the identity when the total is even. */
  const int flipped = (int)(((long long)iters * runs) & 1);
  for (int i = 0; i < lanes; ++i) {
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
