/* Where agentd's launch of one measured run spends its time: the ingredients of
 * agent/measure/workload.cc added one at a time, each mode timed over N runs of the same
 * program, the modes taking turns within each of TRIALS trials (median per mode).
 *
 *   launch_steps N TRIALS BALLAST_MIB PROGRAM [ARGS...]
 *
 *   spawn      posix_spawn + waitpid: the anchor (CLONE_VM|CLONE_VFORK, then exec)
 *   fork       fork; the child blocks on a start pipe; the parent opens task-clock on its pid
 *              (enable_on_exec), writes the start byte, waits, reads the count: perf stat's and
 *              simpleperf's launch, and agentd's before issue 21
 *   vm         the same, the child cloned with CLONE_VM (agentd's launch now)
 *   vm+io      + what agentd adds per run: an output pipe read until EOF, an error pipe, stdin
 *              from /dev/null, a pidfd polled for the exit, waitid, kill of the process group
 *   vm+io+uid  + the privilege drop to nobody (setgroups, setgid, setuid; root only)
 *
 * The parent carries BALLAST_MIB of touched memory and two idle threads, as agentd does, since
 * the cost of fork grows with the parent. The CLONE_VM children make raw system calls only, as
 * agentd's do. The program's output goes to /dev/null (the modes with io read it first); the
 * Markdown table goes to stdout. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

enum { kSpawn, kFork, kVm, kVmIo, kVmIoUid, kModes };
static const char* const kNames[kModes] = {"spawn", "fork", "vm", "vm+io", "vm+io+uid"};

static char** program;
static struct perf_event_attr attr;

/* What a launch child reads. */
static struct { int start_read, start_write, out_write, devnull, drop; } plan;

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* The child: prepares as asked, waits for the start byte, execs (raw system calls only when it
 * shares the parent's memory; syscall(2) would set the parent's errno, the bench has no use
 * for it). */
static int child(void* arg) {
  (void)arg;
  char go;
  syscall(SYS_setpgid, 0, 0);
  if (plan.devnull >= 0) {
    syscall(SYS_dup3, plan.devnull, 0, 0);
    syscall(SYS_dup3, plan.out_write, 1, 0);
    syscall(SYS_dup3, plan.out_write, 2, 0);
  }
  if (plan.drop) {
    syscall(SYS_setgroups, 0, 0);
    syscall(SYS_setgid, 65534);
    syscall(SYS_setuid, 65534);
  }
  syscall(SYS_close, plan.start_write);
  if (syscall(SYS_read, plan.start_read, &go, 1) != 1) syscall(SYS_exit_group, 1);
  syscall(SYS_execve, program[0], program, environ);
  syscall(SYS_exit_group, 127);
  return 0;
}

static void* idle(void* arg) {
  (void)arg;
  for (;;) pause();
  return NULL;
}

/* One run in `mode`. */
static void run(int mode, char* stack) {
  if (mode == kSpawn) {
    pid_t pid;
    int status;
    if (posix_spawn(&pid, program[0], NULL, NULL, program, environ) != 0) exit(1);
    waitpid(pid, &status, 0);
    return;
  }
  int start[2], out[2] = {-1, -1}, err[2] = {-1, -1}, pidfd = -1;
  pipe2(start, O_CLOEXEC);
  plan.start_read = start[0];
  plan.start_write = start[1];
  plan.devnull = -1;
  plan.drop = mode == kVmIoUid;
  if (mode >= kVmIo) {
    pipe2(out, O_CLOEXEC);
    pipe2(err, O_CLOEXEC);
    plan.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    plan.out_write = out[1];
  }
  pid_t pid;
  if (mode == kFork) {
    pid = fork();
    if (pid == 0) child(NULL);
  } else {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid = clone(child, stack, CLONE_VM | CLONE_PIDFD | SIGCHLD, NULL, &pidfd);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  close(start[0]);
  if (mode >= kVmIo) {
    close(out[1]);
    close(err[1]);
    close(plan.devnull);
  }
  const int counter = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  const char go = 1;
  if (write(start[1], &go, 1) != 1) exit(1);
  close(start[1]);
  if (mode >= kVmIo) {
    char buf[4096];
    struct pollfd fds[2] = {{pidfd, POLLIN, 0}, {out[0], POLLIN, 0}};
    int exited = 0, open_out = 1;
    while (!exited || open_out) {
      fds[1].fd = open_out ? out[0] : -1;
      if (poll(fds, 2, -1) < 0) continue;
      if (fds[0].revents) exited = 1, fds[0].fd = -1;
      if (fds[1].revents && read(out[0], buf, sizeof buf) <= 0) open_out = 0;
    }
    siginfo_t info;
    waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED);
    kill(-pid, SIGKILL);
    if (read(err[0], buf, sizeof buf) < 0) exit(1);
    close(out[0]);
    close(err[0]);
    close(pidfd);
  } else {
    int status;
    waitpid(pid, &status, 0);
    if (pidfd >= 0) close(pidfd);
  }
  long count = 0;
  if (read(counter, &count, sizeof count) != sizeof count) exit(1);
  close(counter);
}

static int cmp_long(const void* a, const void* b) {
  const long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s N TRIALS BALLAST_MIB PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  const long n = atol(argv[1]), trials = atol(argv[2]), ballast_mib = atol(argv[3]);
  program = argv + 4;
  FILE* table = fdopen(dup(1), "w");
  const int devnull = open("/dev/null", O_WRONLY);
  dup2(devnull, 1);
  close(devnull);
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;
  pthread_t t;
  pthread_create(&t, NULL, idle, NULL);
  pthread_create(&t, NULL, idle, NULL);
  char* ballast = malloc((size_t)ballast_mib << 20);
  memset(ballast, 1, (size_t)ballast_mib << 20);
  const size_t stack_bytes = 64 << 10;
  char* stack = mmap(NULL, stack_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  const int modes = getuid() == 0 ? kModes : kVmIoUid;
  long* per_run_ns = calloc((size_t)(kModes * trials), sizeof(long));
  for (long k = 0; k < trials; ++k) {
    for (int m = 0; m < modes; ++m) {
      const long t0 = now_ns();
      for (long i = 0; i < n; ++i) run(m, stack + stack_bytes);
      per_run_ns[m * trials + k] = (now_ns() - t0) / n;
    }
  }
  fprintf(table, "| launch | µs/run | over spawn µs |\n|---|---|---|\n");
  double anchor = 0;
  for (int m = 0; m < modes; ++m) {
    qsort(per_run_ns + m * trials, (size_t)trials, sizeof(long), cmp_long);
    const double median_us = per_run_ns[m * trials + trials / 2] / 1000.0;
    if (m == kSpawn) anchor = median_us;
    fprintf(table, "| %s | %.1f | %+.1f |\n", kNames[m], median_us, median_us - anchor);
  }
  free(ballast);
  fclose(table);
  return 0;
}
