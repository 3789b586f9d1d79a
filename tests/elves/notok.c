/* A kernel whose output check fails: exits 0 but prints the seed's "out NOT OK". */
#include <stdio.h>

int main(void) {
  printf("Running Triton Kernel Time: 0.001 s\n");
  printf("out NOT OK\n");
  return 0;
}
