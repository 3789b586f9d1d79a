/* What both roofline microkernels' mains share for khost roofline --threads N: N threads started
 * together, each pinned to a CPU of its own, and the time from their common start to the last
 * one's end (the board's all-core ceilings). */
#ifndef ROOFLINE_THREADS_H
#define ROOFLINE_THREADS_H

/* Thread `index` (from 0) of a run: its part of the setup, or of the timed work. */
typedef void (*kt_thread_fn)(int index, void* arg);

/* Runs setup(i, arg) (when not NULL), then, once every thread has set up, work(i, arg) on
 * `threads` threads at once, thread i pinned to the i-th CPU this process may run on; returns
 * the seconds from their common start to the last one's end. One thread runs in the calling
 * thread, pinned as the agent pinned the process. Exits with status 2 and a message on stderr when
 * the process may run on fewer CPUs than `threads`, or a thread cannot be started or pinned. */
double kt_run_threads(int threads, kt_thread_fn setup, kt_thread_fn work, void* arg);

#endif
