/* A kernel that never finishes: sleeps until killed. */
#include <unistd.h>

int main(void) {
  for (;;) pause();
}
