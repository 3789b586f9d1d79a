// The wall time of a workload as the kernel stamps it: a perf tracking event (the software dummy
// event, as perf record's side-band) opened on the workload's pid before it execs reports its exec
// (a COMM record marked exec) and its exit (an EXIT record), each stamped with CLOCK_MONOTONIC in
// the workload's own context. Their difference leaves out the agent's own latencies, which a
// clock read by the agent counts: the start byte reaching the child, and the exit reaching the
// agent's thread (which, when it ran on another CPU beside khost and the agent's other threads,
// could notice a few milliseconds late: docs/BENCHMARKS.md, P7).
//
// The event is not inherited (the kernel maps no ring of an inherited per-task event), so it sees
// the workload's first process only: its exec, the threads and children it creates (FORK
// records, skipped) and its exit, which is what ends a run. A workload creating more of them than
// the ring holds between two drains can lose its EXIT record; the caller then falls back to its
// own clock.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "agent/measure/perf_event.h"
#include "common/fs.h"
#include "common/status.h"

namespace ktune::agent {

class RunClock {
 public:
  // Opens the tracking event on `pid`, which has not exec'd yet; kUnsupported where the kernel
  // has no such event or refuses it.
  static Result<RunClock> Open(pid_t pid);
  RunClock(RunClock&&) = default;
  RunClock& operator=(RunClock&&) = default;

  // Readable when half the ring is full (a workload creating many threads): then Drain().
  int poll_fd() const { return fd_.get(); }
  // Reads the records written so far.
  void Drain();
  // Exec to exit in ns, once both records were read (Drain after the workload was reaped).
  std::optional<uint64_t> wall_ns() const;

 private:
  RunClock(pid_t pid, ScopedFd fd, PerfRing ring)
      : pid_(pid), fd_(std::move(fd)), ring_(std::move(ring)) {}

  pid_t pid_;
  ScopedFd fd_;
  PerfRing ring_;
  std::optional<uint64_t> exec_ns_, exit_ns_;
};

}  // namespace ktune::agent
