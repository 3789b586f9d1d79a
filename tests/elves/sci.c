/* A kernel that reports its time in scientific notation, as the seed's averaging kernels do. */
#include <stdio.h>

int main(void) {
  printf("Running Triton Kernel Average Time: 5e-05 s\n");
  printf("out OK\n");
  return 0;
}
