/* A kernel that floods its output: writes argv[1] MiB (default 8) of text, then the time line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  const long mib = argc > 1 ? atol(argv[1]) : 8;
  char line[1024];
  memset(line, 'x', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  for (long i = 0; i < mib * 1024; ++i) fwrite(line, 1, sizeof line, stdout);
  printf("Running C Kernel Time: 0.25 s\n");
  return 0;
}
