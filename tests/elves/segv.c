/* A kernel that crashes: writes through a null pointer after printing a line. */
#include <stdio.h>

int main(void) {
  printf("about to crash\n");
  fflush(stdout);
  volatile int* p = 0;
  *p = 1;
  return 0;
}
