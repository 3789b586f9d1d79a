/* The main of roofline_bandwidth (khost roofline): NxSWEEPSxTHREADSxRUN_COUNT, N a multiple of 16.
 * Each of THREADS threads (roofline_threads.h) fills arrays of N doubles of its own and sweeps
 * them, untimed, for warmup_seconds(), then runs the kernel RUN_COUNT times over them; main prints
 * the seed's timing line, then checks what each
 * thread's stream left, exactly (small integers and halves, which doubles hold without rounding):
 * "out OK" (exit 0) or "out NOT OK" (exit 1). */
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"
#include "roofline_threads.h"

double roofline_bandwidth_kernel(double* restrict a, double* restrict b, const double* restrict c,
                                 long n, long sweeps, double s);

static int fail(const char* what, int thread, long i, double got, double want) {
  printf("out NOT OK\n");
  fprintf(stderr, "thread %d: %s[%ld] = %g, want %g\n", thread, what, i, got, want);
  return 1;
}

/* How long each thread sweeps its arrays before the clock starts. The first sweeps after the
 * arrays are filled run slower: measured on an x86-64 VM at 16 MiB (in L3), the first at 45 GB/s,
 * then 65, 76 and 106, and about 120 from the fifth on, a millisecond in all, whatever the cause
 * (the caches as the fill left them, the core's clock, its prefetchers); a call of a few
 * milliseconds timed from the first sweep came out 5-10% low. STREAM leaves its first pass out;
 * likwid-bench runs a kernel to size its timed run first.
 *
 * Beyond the caches it takes longer: on an Intel VM, reading 128 MiB ran at 11 GB/s for 4 sweeps
 * after 20 ms, 15 for 32 sweeps and 17 for 128 (a second), and after half a second untimed, 2
 * sweeps ran at 12-16 where they ran at 10-11 (freshly written memory on that VM; likwid-bench
 * times a second or more). So the warm-up is 20 ms, or a second for each 256 MiB the stream
 * touches, up to a second: 62 ms at 16 MiB, half a second at 128 MiB, nothing more on a board
 * whose last cache is a few MiB. */
static double warmup_seconds(long n) {
#if OP == 0 || OP == 1 || OP == 4
  const double arrays = 1;
#elif OP == 2
  const double arrays = 2;
#else
  const double arrays = 3;
#endif
  const double seconds = arrays * (double)n * 8 / (256.0 * 1024 * 1024);
  return seconds < 0.02 ? 0.02 : seconds > 1 ? 1 : seconds;
}

struct arrays {
  double *a, *b, *c;
  double sum;
  long warmup_sweeps;
};

struct job {
  struct arrays* of; /* each thread's */
  long n, sweeps;
  int runs;
};

/* A thread's arrays, allocated and first touched by the thread that streams them. */
static void setup(int index, void* arg) {
  const struct job* j = arg;
  struct arrays* t = &j->of[index];
  t->a = aligned_alloc(64, (size_t)j->n * 8 + 64);
  t->b = aligned_alloc(64, (size_t)j->n * 8 + 64);
  t->c = aligned_alloc(64, (size_t)j->n * 8 + 64);
  if (!t->a || !t->b || !t->c) {
    fprintf(stderr, "roofline_bandwidth: out of memory\n");
    exit(2);
  }
  for (long i = 0; i < j->n; ++i) {
    t->a[i] = (double)(i % 3);
    t->b[i] = (double)(i % 5);
    t->c[i] = 2;
  }
  const double until = kt_now() + warmup_seconds(j->n);
  do {
    t->sum += roofline_bandwidth_kernel(t->a, t->b, t->c, j->n, 1, 0.5);
    ++t->warmup_sweeps;
  } while (kt_now() < until);
}

static void work(int index, void* arg) {
  const struct job* j = arg;
  struct arrays* t = &j->of[index];
  volatile double s = 0.5; /* a runtime value: the compiler cannot fold the streams */
  for (int r = 0; r < j->runs; ++r) {
    t->sum += roofline_bandwidth_kernel(t->a, t->b, t->c, j->n, j->sweeps, s);
  }
}

/* What thread `index`'s stream left: 0 when it is what it should be. */
static int check(const struct job* j, int index) {
  const struct arrays* t = &j->of[index];
  const long n = j->n;
#if OP == 0 || OP == 4
  /* Each sweep, the untimed ones and the runs', sums n / 3 runs of 0 + 1 + 2, and what is left. */
  double once = 0;
  for (long i = 0; i < n; ++i) once += (double)(i % 3);
  const double want = once * ((double)j->sweeps * j->runs + (double)t->warmup_sweeps);
  if (t->sum != want) return fail("sum", index, 0, t->sum, want);
#else
  for (long i = 0; i < n; ++i) {
#if OP == 1
    if (t->a[i] != 0.5) return fail("a", index, i, t->a[i], 0.5);
#elif OP == 2
    if (t->b[i] != (double)(i % 3)) return fail("b", index, i, t->b[i], (double)(i % 3));
#elif OP == 3
    if (t->a[i] != (double)(i % 5) + 1) return fail("a", index, i, t->a[i], (double)(i % 5) + 1);
#endif
  }
#endif
  return 0;
}

int main(int argc, char** argv) {
  long v[4];
  kt_parse_shape(argc, argv, 4, v, "NxSWEEPSxTHREADSxRUN_COUNT");
  const int threads = (int)v[2];
  struct job j = {calloc(threads > 0 ? (size_t)threads : 1, sizeof(struct arrays)), v[0], v[1],
                  (int)v[3]};
  if (!j.of) {
    fprintf(stderr, "roofline_bandwidth: out of memory\n");
    return 2;
  }
  if (j.n % 16 != 0 || threads < 1) {
    fprintf(stderr,
            "roofline_bandwidth: N (%ld) must be a multiple of 16, THREADS (%d) 1 or more\n", j.n,
            threads);
    return 2;
  }
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) {
    fprintf(stderr, "roofline_bandwidth: this CPU has no AVX2\n");
    return 2;
  }
#endif
  printf("roofline_bandwidth OP=%d: %d threads, %ld doubles per array, %ld sweeps\n", OP, threads,
         j.n, j.sweeps);
  const double seconds = kt_run_threads(threads, setup, work, &j);
  kt_report_time(j.runs > 0 ? seconds / j.runs : 0);
  for (int i = 0; i < threads; ++i) {
    if (check(&j, i) != 0) return 1;
  }
  printf("out OK\n");
  return 0;
}
