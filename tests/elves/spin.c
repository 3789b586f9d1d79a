/* A kernel named the seed's way: spin_kernel() holds the CPU for argv[1] ms of CPU time (default
 * 50), called from main, so that samples land in a known function. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) unsigned long spin_kernel(double ms) {
  volatile unsigned long sink = 0;
  const double start = cpu_s();
  while (cpu_s() - start < ms / 1000.0) {
    for (int i = 0; i < 20000; ++i) sink += (unsigned long)i * 7;
  }
  return sink;
}

int main(int argc, char** argv) {
  const double ms = argc > 1 ? atof(argv[1]) : 50.0;
  const double start = cpu_s();
  spin_kernel(ms);
  printf("Running C Kernel Time: %.6f s\nout OK\n", cpu_s() - start);
  return 0;
}
