/* A workload of a fixed amount of work: argv[1] thousand iterations of a dependent chain, no
 * output, so that ktune ranks it by wall time and a CPU hog sharing its CPU slows it (bench/
 * interference.sh). */
#include <stdlib.h>

int main(int argc, char** argv) {
  const long n = (argc > 1 ? atol(argv[1]) : 10000) * 1000L;
  volatile unsigned long x = 1;
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x == 0; /* never: keeps the chain */
}
