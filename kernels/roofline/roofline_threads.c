/* kt_run_threads (roofline_threads.h): pthreads pinned with pthread_setaffinity_np, released
 * together by a barrier that the timing thread also waits at. */
#define _GNU_SOURCE
#include "roofline_threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"

struct thread {
  pthread_t id;
  int index, cpu;
  kt_thread_fn setup, work;
  void* arg;
  pthread_barrier_t* start;
};

static void die(const char* what, int error) {
  fprintf(stderr, "roofline: %s (error %d)\n", what, error);
  exit(2);
}

static void* thread_main(void* p) {
  struct thread* t = p;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(t->cpu, &set);
  const int error = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (error != 0) die("cannot pin a thread to its CPU", error);
  if (t->setup) t->setup(t->index, t->arg);
  pthread_barrier_wait(t->start);
  t->work(t->index, t->arg);
  return NULL;
}

double kt_run_threads(int threads, kt_thread_fn setup, kt_thread_fn work, void* arg) {
  if (threads <= 1) {
    if (setup) setup(0, arg);
    const double start = kt_now();
    work(0, arg);
    return kt_now() - start;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) die("cannot read the CPUs allowed", 0);
  if (CPU_COUNT(&allowed) < threads) {
    fprintf(stderr, "roofline: THREADS=%d, but this process may run on %d CPUs\n", threads,
            CPU_COUNT(&allowed));
    exit(2);
  }
  struct thread* t = calloc((size_t)threads, sizeof *t);
  pthread_barrier_t start;
  if (!t || pthread_barrier_init(&start, NULL, (unsigned)threads + 1) != 0) {
    die("out of memory", 0);
  }
  int cpu = 0;
  for (int i = 0; i < threads; ++i, ++cpu) {
    while (!CPU_ISSET(cpu, &allowed)) ++cpu;
    t[i] = (struct thread){
        .index = i, .cpu = cpu, .setup = setup, .work = work, .arg = arg, .start = &start};
    const int error = pthread_create(&t[i].id, NULL, thread_main, &t[i]);
    if (error != 0) die("cannot start a thread", error);
  }
  pthread_barrier_wait(&start);
  const double begin = kt_now();
  for (int i = 0; i < threads; ++i) pthread_join(t[i].id, NULL);
  const double seconds = kt_now() - begin;
  pthread_barrier_destroy(&start);
  free(t);
  return seconds;
}
