/* A correct kernel: spins for argv[2] milliseconds of CPU time (default 5), reads the file named
 * by argv[1] when given (to prove the working directory reproduces the seed's layout), prints
 * its time the seed's way and "out OK". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0]) {
    FILE* f = fopen(argv[1], "r");
    if (!f) {
      perror(argv[1]);
      return 3;
    }
    int rows = 0, cols = 0;
    if (fscanf(f, "%d %d", &rows, &cols) != 2) return 4;
    fclose(f);
    printf("read %dx%d from %s\n", rows, cols, argv[1]);
  }
  const double ms = argc > 2 ? atof(argv[2]) : 5.0;
  const double start = now_s(CLOCK_PROCESS_CPUTIME_ID);
  volatile unsigned long sink = 0;
  while (now_s(CLOCK_PROCESS_CPUTIME_ID) - start < ms / 1000.0) {
    for (int i = 0; i < 1000; ++i) sink += (unsigned long)i * i;
  }
  printf("Running C Kernel Time: %.6f s\n", now_s(CLOCK_PROCESS_CPUTIME_ID) - start);
  printf("out OK\n");
  return 0;
}
