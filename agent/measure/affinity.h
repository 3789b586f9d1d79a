// CPU affinity around a pinned run (khost run --cpu N): the counter-budget probe counts on the
// measured CPU (PinThread), agentd's own threads (sessions, the acceptor) stay off it while
// kernels run there (KeepThreadsOff), and the measurer, which launches them and sleeps while they
// run, is pinned to it (agent/server/measurer.cc); the kernel's child pins itself to N before exec
// (workload.cc). Both give the masks back when they end.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <utility>
#include <vector>

namespace ktune::agent {

// Pins the calling thread to `cpu` until destroyed. cpu < 0, or a CPU the thread may not use:
// nothing changes.
class PinThread {
 public:
  explicit PinThread(int cpu);
  ~PinThread();
  PinThread(const PinThread&) = delete;
  PinThread& operator=(const PinThread&) = delete;

 private:
  bool pinned_ = false;
  cpu_set_t before_;
};

// Takes `cpu` out of the mask of every thread of this process (as /proc/self/task lists them)
// until destroyed; threads they start meanwhile inherit the narrower mask. A thread whose mask
// holds only `cpu` keeps it (it has nowhere else to run). cpu < 0: nothing changes.
class KeepThreadsOff {
 public:
  explicit KeepThreadsOff(int cpu);
  ~KeepThreadsOff();
  KeepThreadsOff(const KeepThreadsOff&) = delete;
  KeepThreadsOff& operator=(const KeepThreadsOff&) = delete;

 private:
  std::vector<std::pair<pid_t, cpu_set_t>> before_;  // thread id, its mask before
};

}  // namespace ktune::agent
