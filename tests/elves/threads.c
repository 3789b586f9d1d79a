/* A kernel that creates argv[1] threads (default 400) one after another, each joined before the
 * next, pausing 1 ms after every 20: each creation is a FORK record in a tracking event's ring
 * (agent/measure/run_clock.h), more of them than its ring holds, slowly enough for a reader
 * draining it as it fills. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void* nothing(void* arg) {
  return arg;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 400;
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) != 0) return 1;
    pthread_join(t, NULL);
    if (i % 20 == 19) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  printf("out OK\n");
  return 0;
}
