// Runs one workload the way simpleperf's workload.cpp does: the child prepares (own process
// group, stdin from /dev/null, stdout+stderr into a pipe, CPU pinning, working directory, every
// inherited fd close-on-exec, default signal dispositions and an empty signal mask) and then
// blocks on a start pipe; the caller opens counters on the child's pid; Run() writes the byte
// that lets the child exec, streams its output to an observer while keeping a bounded copy (a
// pinned child's, every kPinnedOutputPeriodNs rather than as it comes),
// enforces the timeout by killing the whole process group, and reports how the run ended. The
// child is cloned with CLONE_VM, as posix_spawn does, not forked: there is no copy of the agent's
// memory to make at the clone and none to tear down at exec (docs/BENCHMARKS.md, launch cost).
//
// Descendants that leave the process group (setsid) are not killed; once the child has exited
// their output is read for at most kDrainAfterExitNs, then the pipe is closed, so a writer among
// them gets SIGPIPE. Containing them for good is the sandbox's work (cgroups).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/fs.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune::agent {

// Lets another thread abort running workloads (agent shutdown): Cancel() makes fd() readable
// for good, and every Workload polling it kills its process group.
class Canceller {
 public:
  static Result<Canceller> Create();
  void Cancel();
  bool cancelled() const;
  // Waits `duration_ns`, or less when cancelled; returns cancelled().
  bool WaitFor(uint64_t duration_ns) const;
  int fd() const { return fd_.get(); }

 private:
  explicit Canceller(ScopedFd fd) : fd_(std::move(fd)) {}
  ScopedFd fd_;
};

// How long output is still read after the child exited (from descendants still holding the pipe).
constexpr uint64_t kDrainAfterExitNs = 200'000'000;
// A pinned kernel shares its CPU with the thread waiting for it, which reads its output only this
// often while it runs, from a pipe of this size (where the system allows): a kernel that writes
// more than that in the period waits for the read.
constexpr uint64_t kPinnedOutputPeriodNs = 50'000'000;
constexpr int kPinnedOutputPipeBytes = 1 << 20;

// What a workload may use (setrlimit in the child, soft and hard); 0 leaves a limit as it is.
struct WorkloadLimits {
  uint64_t address_space_bytes = 0;  // RLIMIT_AS: a memory hog gets ENOMEM, not the OOM killer
  uint64_t processes = 0;            // RLIMIT_NPROC: of its user (a fork bomb's fork fails)
  uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE: a bigger write gets SIGXFSZ
};

// The unprivileged user a workload runs as (agentd as root, --run-as).
struct WorkloadUser {
  uid_t uid = 0;
  gid_t gid = 0;
};

struct WorkloadOptions {
  std::string path;  // executable; relative paths are relative to cwd
  std::vector<std::string> args;
  std::vector<std::string> env;  // NAME=VALUE set in the agent's environment for the workload
  std::string cwd;
  WorkloadLimits limits;
  std::optional<WorkloadUser> user;  // switch to it (no supplementary groups) before exec
  int cpu = -1;  // pin to this CPU when >= 0 (and read the output every kPinnedOutputPeriodNs)
  uint64_t timeout_ns = 0;               // 0: no timeout
  size_t output_head_bytes = 1u << 20;   // the first bytes kept of stdout+stderr
  size_t output_tail_bytes = 64u << 10;  // and the last bytes
  const Canceller* canceller = nullptr;
  // Sees every byte of stdout+stderr as it is read (as it arrives; pinned, every
  // kPinnedOutputPeriodNs and at the exit), whatever the bounds keep.
  std::function<void(std::string_view)> on_output;
};

struct WorkloadResult {
  Outcome outcome;
  std::string launch_error;  // set when outcome is kLaunchFailed
  int64_t start_unix_ns = 0;
  uint64_t wall_ns = 0;       // CLOCK_MONOTONIC from the start byte to the exit the agent sees
  std::string output;         // head, then (if bytes were dropped) a marker line, then tail
  uint64_t output_bytes = 0;  // everything the workload wrote
  bool cancelled = false;     // killed by the Canceller; measure nothing from this run
};

// What the child reads while it prepares (workload.cc).
struct ChildPlan;

class Workload {
 public:
  // Clones the child and leaves it waiting for Start().
  static Result<Workload> Prepare(const WorkloadOptions& options);

  Workload(Workload&& other) noexcept;
  Workload& operator=(Workload&&) noexcept = delete;
  Workload(const Workload&) = delete;
  ~Workload();  // kills and reaps a child that is still around

  pid_t pid() const { return pid_; }

  // More fds to watch while the workload runs (a sampler's ring buffers, opened on pid());
  // `on_ready` runs whenever one of them is readable.
  void Watch(std::vector<int> fds, std::function<void()> on_ready);

  // Lets the child exec and waits for it (and the timeout). `at_exit` runs as soon as the child is
  // reaped, before anything else is killed or read: the moment to read its counters. Call once.
  WorkloadResult Run(const std::function<void()>& at_exit = nullptr);

 private:
  Workload() = default;

  // The steps of Run (workload.cc), sharing what the run has seen so far.
  struct Progress;
  // The start byte: the child execs.
  void Start(Progress& p);
  // Polls until the child exits: its output, the timeout, the canceller, the watched fds.
  void WaitForExit(Progress& p);
  // Reaps the child, then calls `at_exit`.
  void Reap(Progress& p, const std::function<void()>& at_exit);
  // Kills what is left of its process group and reads the rest of its output, for a bounded
  // time.
  void DrainAfterExit(Progress& p);
  // How the run ended, with its output.
  WorkloadResult Conclude(Progress& p);
  // Reads what output is available; false at its end.
  bool ReadOutput(Progress& p);
  void KillGroup() const;

  WorkloadOptions options_;
  pid_t pid_ = -1;
  std::unique_ptr<ChildPlan> plan_;  // kept until the child is reaped: it runs on it
  ScopedFd start_fd_;                // write end: one byte starts the child
  ScopedFd error_fd_;   // read end: errno from a failed step before exec, EOF on success
  ScopedFd output_fd_;  // read end of stdout+stderr
  ScopedFd pid_fd_;     // pidfd of the child, readable when it exits
  bool reaped_ = false;
  std::vector<int> watch_fds_;
  std::function<void()> on_watch_;
};

}  // namespace ktune::agent
