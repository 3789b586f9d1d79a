#include "agent/measure/workload.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <string_view>
#include <utility>

#include "agent/measure/raw_syscall.h"

extern char** environ;

namespace ktune::agent {
namespace {

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

int64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

Result<std::pair<ScopedFd, ScopedFd>> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
  return std::make_pair(ScopedFd(fds[0]), ScopedFd(fds[1]));
}

// The child's steps before exec that can fail, in the order it takes them.
enum class ChildStage : int {
  kSetpgid,
  kDup2,
  kSchedSetaffinity,
  kChdir,
  kCloseRange,
  kSetrlimit,
  kSetuid,
  kPdeathsig,
  kExec,
};

// Their names in WorkloadResult::launch_error, in the enum's order.
constexpr const char* kChildStageNames[] = {"setpgid", "dup2",        "sched_setaffinity",
                                            "chdir",   "close_range", "setrlimit",
                                            "setuid",  "prctl",       "exec"};
static_assert(std::size(kChildStageNames) == static_cast<size_t>(ChildStage::kExec) + 1);

// The name of a step; null for a value no step has.
const char* ChildStageName(ChildStage stage) {
  const auto i = static_cast<size_t>(stage);
  return i < std::size(kChildStageNames) ? kChildStageNames[i] : nullptr;
}

// What the child reports through the error pipe when a step before exec fails.
struct ChildFailure {
  ChildStage stage;
  int error;
};

}  // namespace

// Keeps the first `head` bytes and the last `tail` bytes of a stream (outside the anonymous
// namespace: Workload::Progress holds one).
class BoundedOutput {
 public:
  BoundedOutput(size_t head, size_t tail) : head_limit_(head), tail_limit_(tail) {}
  void Append(const char* p, size_t n) {
    total_ += n;
    size_t take = std::min(n, head_limit_ - head_.size());
    head_.append(p, take);
    p += take;
    n -= take;
    if (n == 0 || tail_limit_ == 0) return;
    tail_.append(p, n);
    if (tail_.size() > 2 * tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
  }
  std::string Text() const {
    if (tail_.empty()) return head_;
    const size_t keep = std::min(tail_.size(), tail_limit_);
    const uint64_t dropped = total_ - head_.size() - keep;
    std::string out = head_;
    if (dropped > 0) out += "\n[ktune: " + std::to_string(dropped) + " bytes of output dropped]\n";
    out.append(tail_, tail_.size() - keep, keep);
    return out;
  }
  uint64_t total() const { return total_; }

 private:
  size_t head_limit_, tail_limit_;
  std::string head_, tail_;
  uint64_t total_ = 0;
};

Result<Canceller> Canceller::Create() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) return ErrnoError("eventfd", errno);
  return Canceller(ScopedFd(fd));
}

void Canceller::Cancel() {
  const uint64_t one = 1;
  ssize_t ignored = ::write(fd_.get(), &one, sizeof one);
  (void)ignored;
}

bool Canceller::cancelled() const {
  pollfd p = {fd_.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

bool Canceller::WaitFor(uint64_t duration_ns) const {
  timespec left{static_cast<time_t>(duration_ns / 1000000000),
                static_cast<long>(duration_ns % 1000000000)};
  pollfd p = {fd_.get(), POLLIN, 0};
  return ::ppoll(&p, 1, &left, nullptr) == 1;
}

namespace {

// The pipes between the agent and the child.
struct ChildPipes {
  std::pair<ScopedFd, ScopedFd> start, error, output;
};

Result<ChildPipes> MakeChildPipes(bool pinned) {
  ChildPipes p;
  KT_ASSIGN_OR_RETURN(p.start, MakePipe());
  KT_ASSIGN_OR_RETURN(p.error, MakePipe());
  KT_ASSIGN_OR_RETURN(p.output, MakePipe());
  // Pinned, the output is read only now and then while the kernel runs (WaitForExit): a bigger
  // pipe lets it write more before it waits. Where the system refuses, the pipe keeps its size.
  if (pinned) (void)::fcntl(p.output.first.get(), F_SETPIPE_SZ, kPinnedOutputPipeBytes);
  return p;
}

// The children's stdin, opened once.
Result<int> DevNull() {
  static const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open /dev/null", errno);
  return fd;
}

// The agent's pid, the children's parent, for PR_SET_PDEATHSIG's race.
pid_t AgentPid() {
  static const pid_t pid = ::getpid();
  return pid;
}

}  // namespace

// Everything the child needs, built before the clone and left untouched while the child may
// read it (until it execs or exits): plain values and pointers into the strings held here.
struct ChildPlan {
  ChildPlan(const WorkloadOptions& options, const ChildPipes& pipes, int devnull_fd)
      : argv_storage(1, options.path), cwd_storage(options.cwd) {
    argv_storage.insert(argv_storage.end(), options.args.begin(), options.args.end());
    for (auto& a : argv_storage) argv_pointers.push_back(a.data());
    argv_pointers.push_back(nullptr);
    argv = argv_pointers.data();
    if (!options.env.empty()) {
      // options.env first: getenv takes a name's first entry, so it wins over the agent's own.
      env_storage = options.env;
      for (auto& e : env_storage) env_pointers.push_back(e.data());
      for (char* const* e = environ; *e; ++e) env_pointers.push_back(*e);
      env_pointers.push_back(nullptr);
      envp = env_pointers.data();
    }
    cwd = cwd_storage.empty() ? nullptr : cwd_storage.c_str();
    CPU_ZERO(&cpus);
    pin = options.cpu >= 0;
    if (pin) CPU_SET(options.cpu, &cpus);
    auto limit = [&](int resource, uint64_t value) {
      if (value) limits[limit_count++] = {resource, {value, value}};
    };
    limit(RLIMIT_AS, options.limits.address_space_bytes);
    limit(RLIMIT_NPROC, options.limits.processes);
    limit(RLIMIT_FSIZE, options.limits.file_size_bytes);
    if (options.user) {
      drop = true;
      user = *options.user;
    }
    start_read = pipes.start.first.get();
    start_write = pipes.start.second.get();
    error_write = pipes.error.second.get();
    output_write = pipes.output.second.get();
    devnull = devnull_fd;
  }
  ChildPlan(const ChildPlan&) = delete;
  ChildPlan& operator=(const ChildPlan&) = delete;

  std::vector<std::string> argv_storage;
  std::vector<char*> argv_pointers;
  std::vector<std::string> env_storage;
  std::vector<char*> env_pointers;
  std::string cwd_storage;
  // The child's stack: it shares the agent's memory, so it needs a stack of its own. Its frames
  // take well under a KiB.
  static constexpr size_t kStackBytes = 64 << 10;
  std::unique_ptr<char[]> stack = std::make_unique_for_overwrite<char[]>(kStackBytes);

  // What the child reads.
  char* const* argv = nullptr;
  char* const* envp = environ;
  const char* cwd = nullptr;  // null: stay where the agent is
  cpu_set_t cpus;
  bool pin = false;
  struct Limit {
    int resource;
    rlimit value;
  } limits[3];
  size_t limit_count = 0;
  bool drop = false;  // switch to `user` (no supplementary groups)
  WorkloadUser user;
  pid_t agent = AgentPid();
  int start_read = -1, start_write = -1, error_write = -1, output_write = -1, devnull = -1;
};

namespace {

// The child runs on the agent's memory (CLONE_VM: nothing to copy, nothing to tear down at
// exec) while the agent's threads go on, so until it execs it makes raw system calls only
// (agent/measure/raw_syscall.h), reads only the Child, writes only its own stack, and is not
// instrumented by sanitizers, whose state is the agent's.
#define KT_LAUNCH_CHILD [[gnu::noinline]] __attribute__((no_sanitize("address", "undefined")))

[[noreturn]] KT_LAUNCH_CHILD void ChildExit(int code) {
  for (;;) RawSyscall(SYS_exit_group, code);
}

[[noreturn]] KT_LAUNCH_CHILD void ChildFail(int fd, ChildStage stage, long result) {
  const ChildFailure f{stage, static_cast<int>(-result)};
  RawSyscall(SYS_write, fd, reinterpret_cast<long>(&f), sizeof f);
  ChildExit(127);
}

// Every fd above stderr becomes close-on-exec, so the workload inherits none of the agent's
// sockets or files.
KT_LAUNCH_CHILD long CloseOnExecAbove2() {
  const long r = RawSyscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC);
  if (r == 0) return 0;
  rlimit lim;  // kernels before 5.11: mark them one by one
  const long got = RawSyscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, reinterpret_cast<long>(&lim));
  if (got != 0) return got;
  const rlim_t last = lim.rlim_cur < 65536 ? lim.rlim_cur : 65536;
  for (rlim_t fd = 3; fd < last; ++fd)
    RawSyscall(SYS_fcntl, static_cast<long>(fd), F_SETFD, FD_CLOEXEC);
  return 0;
}

// Every signal the agent handles or ignores returns to its default, as under a shell or perf (a
// handler of the agent's must not run in the child; an ignored SIGPIPE must not reach the
// workload), and nothing stays blocked. The kernel's struct sigaction starts with the handler and
// is at most 32 bytes on every architecture; all zeros is SIG_DFL.
KT_LAUNCH_CHILD void ResetSignals() {
  constexpr long kSigsetBytes = 8;
  const unsigned long dfl[4] = {0, 0, 0, 0};
  for (int sig = 1; sig <= 64; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    unsigned long old[4] = {0, 0, 0, 0};
    if (RawSyscall(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(old), kSigsetBytes) == 0 &&
        old[0] != 0) {
      RawSyscall(SYS_rt_sigaction, sig, reinterpret_cast<long>(dfl), 0, kSigsetBytes);
    }
  }
  const unsigned long none = 0;
  RawSyscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, kSigsetBytes);
}

// fd `from` becomes `to`, without close-on-exec.
KT_LAUNCH_CHILD long MoveFd(int from, int to) {
  if (from == to) return RawSyscall(SYS_fcntl, to, F_SETFD, 0);
  const long r = RawSyscall(SYS_dup3, from, to, 0);
  return r < 0 ? r : 0;
}

// The child after the clone: prepares, waits for the start byte, execs. A step that fails is
// reported through the error pipe.
KT_LAUNCH_CHILD int RunChild(void* arg) {
  const ChildPlan& c = *static_cast<const ChildPlan*>(arg);
  const int err = c.error_write;
  long r;
  if ((r = RawSyscall(SYS_setpgid, 0, 0)) != 0) ChildFail(err, ChildStage::kSetpgid, r);
  if ((r = MoveFd(c.devnull, 0)) != 0 || (r = MoveFd(c.output_write, 1)) != 0 ||
      (r = MoveFd(c.output_write, 2)) != 0) {
    ChildFail(err, ChildStage::kDup2, r);
  }
  if (c.pin && (r = RawSyscall(SYS_sched_setaffinity, 0, sizeof c.cpus,
                               reinterpret_cast<long>(&c.cpus))) != 0) {
    ChildFail(err, ChildStage::kSchedSetaffinity, r);
  }
  if (c.cwd && (r = RawSyscall(SYS_chdir, reinterpret_cast<long>(c.cwd))) != 0) {
    ChildFail(err, ChildStage::kChdir, r);
  }
  if ((r = CloseOnExecAbove2()) != 0) ChildFail(err, ChildStage::kCloseRange, r);
  for (size_t i = 0; i < c.limit_count; ++i) {
    r = RawSyscall(SYS_prlimit64, 0, c.limits[i].resource,
                   reinterpret_cast<long>(&c.limits[i].value), 0);
    if (r != 0) ChildFail(err, ChildStage::kSetrlimit, r);
  }
  // Raw calls change this process's ids only (libc's would change every thread of the agent).
  if (c.drop && ((r = RawSyscall(SYS_setgroups, 0, 0)) != 0 ||
                 (r = RawSyscall(SYS_setgid, c.user.gid)) != 0 ||
                 (r = RawSyscall(SYS_setuid, c.user.uid)) != 0)) {
    ChildFail(err, ChildStage::kSetuid, r);
  }
  // A kernel must not outlive a killed agent. After the privilege drop, which clears the
  // parent-death signal; an agent already gone by then is seen as a new parent.
  if ((r = RawSyscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL)) != 0) {
    ChildFail(err, ChildStage::kPdeathsig, r);
  }
  if (RawSyscall(SYS_getppid) != c.agent) ChildExit(127);
  ResetSignals();
  // The child's copy of the start pipe's write end goes: should the agent die before it starts
  // the child, the read below ends (EOF) instead of blocking for good with the agent's sockets
  // held open.
  RawSyscall(SYS_close, c.start_write);
  char go = 0;
  do {
    r = RawSyscall(SYS_read, c.start_read, reinterpret_cast<long>(&go), 1);
  } while (r == -EINTR);
  if (r != 1) ChildExit(127);  // the agent gave up on this run
  r = RawSyscall(SYS_execve, reinterpret_cast<long>(c.argv[0]), reinterpret_cast<long>(c.argv),
                 reinterpret_cast<long>(c.envp));
  ChildFail(err, ChildStage::kExec, r);
}

}  // namespace

Result<Workload> Workload::Prepare(const WorkloadOptions& options) {
  KT_ASSIGN_OR_RETURN(ChildPipes pipes, MakeChildPipes(options.cpu >= 0));
  KT_ASSIGN_OR_RETURN(const int devnull, DevNull());
  auto plan = std::make_unique<ChildPlan>(options, pipes, devnull);
  // The child starts with every signal blocked, so that no handler of the agent's runs in it
  // before ResetSignals.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  char* const stack = plan->stack.get() + ChildPlan::kStackBytes;
  int pidfd = -1;
  pid_t pid = ::clone(RunChild, stack, CLONE_VM | CLONE_PIDFD | SIGCHLD, plan.get(), &pidfd);
  if (pid < 0 && errno == EINVAL) {
    // An emulator running the agent (qemu-user) clones a process with CLONE_VM only as a
    // thread: the child is forked instead, on a copy of the agent's memory.
    pid = ::clone(RunChild, stack, SIGCHLD, plan.get());
    if (pid > 0) pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  }
  const int clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return ErrnoError("clone", clone_errno);
  if (pidfd < 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return ErrnoError("pidfd_open", clone_errno);
  }

  Workload w;
  w.options_ = options;
  w.pid_ = pid;
  w.plan_ = std::move(plan);
  w.start_fd_ = std::move(pipes.start.second);
  w.error_fd_ = std::move(pipes.error.first);
  w.output_fd_ = std::move(pipes.output.first);
  w.pid_fd_.Reset(pidfd);
  return w;
}

Workload::Workload(Workload&& other) noexcept
    : options_(std::move(other.options_)),
      pid_(std::exchange(other.pid_, -1)),
      plan_(std::move(other.plan_)),
      start_fd_(std::move(other.start_fd_)),
      error_fd_(std::move(other.error_fd_)),
      output_fd_(std::move(other.output_fd_)),
      pid_fd_(std::move(other.pid_fd_)),
      reaped_(other.reaped_),
      watch_fds_(std::move(other.watch_fds_)),
      on_watch_(std::move(other.on_watch_)) {}

void Workload::Watch(std::vector<int> fds, std::function<void()> on_ready) {
  watch_fds_ = std::move(fds);
  on_watch_ = std::move(on_ready);
}

Workload::~Workload() {
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

// One Run: what it has seen so far, and the output it keeps.
struct Workload::Progress {
  explicit Progress(const WorkloadOptions& o) : out(o.output_head_bytes, o.output_tail_bytes) {}
  WorkloadResult result;
  BoundedOutput out;
  int cancel_fd = -1;
  uint64_t t0 = 0, t1 = 0;  // the start byte, the child's exit (CLOCK_MONOTONIC)
  bool timed_out = false;
  bool output_open = true;
  siginfo_t info;
};

WorkloadResult Workload::Run(const std::function<void()>& at_exit) {
  Progress p(options_);
  p.cancel_fd = options_.canceller ? options_.canceller->fd() : -1;
  Start(p);
  WaitForExit(p);
  Reap(p, at_exit);
  DrainAfterExit(p);
  return Conclude(p);
}

bool Workload::ReadOutput(Progress& p) {
  char buf[1 << 16];
  const ssize_t got = ::read(output_fd_.get(), buf, sizeof buf);
  if (got < 0 && errno == EINTR) return true;
  if (got <= 0) return false;
  p.out.Append(buf, static_cast<size_t>(got));
  if (options_.on_output) options_.on_output(std::string_view(buf, static_cast<size_t>(got)));
  return true;
}

void Workload::KillGroup() const {
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
}

void Workload::Start(Progress& p) {
  p.result.start_unix_ns = RealtimeNs();
  p.t0 = MonotonicNs();
  const char go = 1;
  (void)WriteAll(start_fd_.get(), std::string_view(&go, 1), "start pipe");
  start_fd_.Reset();
}

void Workload::WaitForExit(Progress& p) {
  const uint64_t deadline = options_.timeout_ns ? p.t0 + options_.timeout_ns : 0;
  // Pinned, this thread shares the kernel's CPU (agent/server/measurer.cc): it does not wake for
  // each chunk of output the kernel writes, but looks at the pipe every kPinnedOutputPeriodNs
  // (`next_look`) and reads what it holds then, polling with no wait (`look`) until it is empty;
  // and at the exit.
  const bool pinned = options_.cpu >= 0;
  bool look = !pinned;
  uint64_t next_look = p.t0 + kPinnedOutputPeriodNs;
  std::vector<int> watched = watch_fds_;
  bool exited = false;
  while (!exited) {
    int timeout_ms = -1;
    const uint64_t now = MonotonicNs();
    if (deadline && !p.timed_out) {
      if (now >= deadline) {
        KillGroup();
        p.timed_out = true;
      } else {
        timeout_ms = static_cast<int>((deadline - now) / 1000000u) + 1;
      }
    }
    if (pinned && p.output_open) {
      look = look || now >= next_look;
      const int look_ms = look ? 0 : static_cast<int>((next_look - now) / 1000000u) + 1;
      timeout_ms = timeout_ms < 0 ? look_ms : std::min(timeout_ms, look_ms);
    }
    const bool read_output = p.output_open && look;
    std::vector<pollfd> fds = {{pid_fd_.get(), POLLIN, 0},
                               {p.result.cancelled ? -1 : p.cancel_fd, POLLIN, 0},
                               {read_output ? output_fd_.get() : -1, POLLIN, 0}};
    for (int fd : watched) fds.push_back({fd, POLLIN, 0});
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) break;
    if (n == 0 && pinned && look) {  // the pipe is empty: the next look is a period away
      look = false;
      next_look = MonotonicNs() + kPinnedOutputPeriodNs;
    }
    if (n <= 0) continue;
    bool watch_ready = false;
    for (size_t k = 3; k < fds.size(); ++k) {
      if (fds[k].revents & POLLIN) watch_ready = true;
      // A watched fd that hangs up (its task ended) is not watched again.
      if (fds[k].revents & (POLLHUP | POLLERR | POLLNVAL)) watched[k - 3] = -1;
    }
    if (watch_ready && on_watch_) on_watch_();
    if (fds[1].revents) {
      KillGroup();
      p.result.cancelled = true;
    }
    if (fds[0].revents) {
      p.t1 = MonotonicNs();
      exited = true;
    }
    if (read_output && fds[2].revents) p.output_open = ReadOutput(p);
  }
  p.result.wall_ns = p.t1 > p.t0 ? p.t1 - p.t0 : 0;
}

void Workload::Reap(Progress& p, const std::function<void()>& at_exit) {
  std::memset(&p.info, 0, sizeof p.info);
  while (::waitid(P_PIDFD, static_cast<id_t>(pid_fd_.get()), &p.info, WEXITED) != 0 &&
         errno == EINTR) {
  }
  reaped_ = true;
  if (at_exit) at_exit();
}

void Workload::DrainAfterExit(Progress& p) {
  // Whatever the workload left behind in its process group goes too, so it cannot disturb the
  // next measurement; then the rest of its output is read, for a bounded time.
  ::kill(-pid_, SIGKILL);
  const uint64_t drain_end = MonotonicNs() + kDrainAfterExitNs;
  while (p.output_open) {
    const uint64_t now = MonotonicNs();
    if (now >= drain_end) break;
    pollfd fds[2] = {{output_fd_.get(), POLLIN, 0}, {p.cancel_fd, POLLIN, 0}};
    const int n = ::poll(fds, 2, static_cast<int>((drain_end - now) / 1000000u) + 1);
    if (n < 0 && errno != EINTR) break;
    if (fds[1].revents) break;  // shutting down: the rest of the output does not matter
    if (n <= 0) continue;
    p.output_open = ReadOutput(p);
  }
  output_fd_.Reset();
}

WorkloadResult Workload::Conclude(Progress& p) {
  WorkloadResult& r = p.result;
  ChildFailure failure;
  const ssize_t fn = ::read(error_fd_.get(), &failure, sizeof failure);
  const char* stage =
      fn == static_cast<ssize_t>(sizeof failure) ? ChildStageName(failure.stage) : nullptr;
  if (stage) {
    r.outcome.kind = OutcomeKind::kLaunchFailed;
    r.launch_error = std::string(stage) + " " + options_.path + ": " + std::strerror(failure.error);
  } else if (p.timed_out) {
    r.outcome.kind = OutcomeKind::kTimedOut;
  } else if (p.info.si_code == CLD_EXITED) {
    r.outcome = {OutcomeKind::kExited, p.info.si_status};
  } else {
    r.outcome = {OutcomeKind::kSignaled, p.info.si_status};
  }
  r.output = p.out.Text();
  r.output_bytes = p.out.total();
  return std::move(r);
}

}  // namespace ktune::agent
