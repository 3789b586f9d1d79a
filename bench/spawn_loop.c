/* The anchor for per-run overhead: runs a program N times with posix_spawn + waitpid and
 * nothing else, so "bare" = the cost of the workload itself plus the unavoidable exec.
 *   spawn_loop N PROGRAM [ARGS...] */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s N PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  const long n = atol(argv[1]);
  for (long i = 0; i < n; ++i) {
    pid_t pid;
    if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0) return 1;
    int status;
    waitpid(pid, &status, 0);
  }
  return 0;
}
