#include "agent/measure/workload.h"

#include <fcntl.h>
#include <grp.h>
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

#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

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

// In the child, before exec (async-signal-safe calls only): every fd above stderr becomes
// close-on-exec, so the workload inherits none of the agent's sockets or files.
bool CloseOnExecAbove2() {
  if (::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0) return true;
  rlimit lim;  // kernels before 5.11: mark them one by one
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
  const rlim_t last = lim.rlim_cur < 65536 ? lim.rlim_cur : 65536;
  for (rlim_t fd = 3; fd < last; ++fd) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return true;
}

// In the child: signals ignored by the agent (SIGPIPE) return to their defaults, as they would
// be under a shell or perf, and nothing stays blocked.
void ResetSignals() {
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {
      struct sigaction dfl;
      std::memset(&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      ::sigaction(sig, &dfl, nullptr);
    }
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void ChildFail(int fd, ChildStage stage) {
  ChildFailure f{stage, errno};
  ssize_t ignored = ::write(fd, &f, sizeof f);
  (void)ignored;
  ::_exit(127);
}

// Keeps the first `head` bytes and the last `tail` bytes of a stream.
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

}  // namespace

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

// Everything the child needs, built before fork: after it, only async-signal-safe calls. Not
// copied or moved: argv points into argv_storage.
struct ChildPlan {
  explicit ChildPlan(const WorkloadOptions& options) : options(options) {
    argv_storage.push_back(options.path);
    argv_storage.insert(argv_storage.end(), options.args.begin(), options.args.end());
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    CPU_ZERO(&cpus);
    if (options.cpu >= 0) CPU_SET(options.cpu, &cpus);
    if (options.limits.address_space_bytes) {
      limits.emplace_back(RLIMIT_AS, options.limits.address_space_bytes);
    }
    if (options.limits.processes) limits.emplace_back(RLIMIT_NPROC, options.limits.processes);
    if (options.limits.file_size_bytes) {
      limits.emplace_back(RLIMIT_FSIZE, options.limits.file_size_bytes);
    }
  }
  ChildPlan(const ChildPlan&) = delete;
  ChildPlan& operator=(const ChildPlan&) = delete;

  const WorkloadOptions& options;
  const pid_t agent = ::getpid();  // the child's parent, for PR_SET_PDEATHSIG's race
  std::vector<std::string> argv_storage;
  std::vector<char*> argv;
  cpu_set_t cpus;
  std::vector<std::pair<int, rlim_t>> limits;
};

// The pipes between the agent and the child, and the child's stdin.
struct ChildPipes {
  std::pair<ScopedFd, ScopedFd> start, error, output;
  ScopedFd devnull;
};

Result<ChildPipes> MakeChildPipes() {
  ChildPipes p;
  KT_ASSIGN_OR_RETURN(p.start, MakePipe());
  KT_ASSIGN_OR_RETURN(p.error, MakePipe());
  KT_ASSIGN_OR_RETURN(p.output, MakePipe());
  KT_ASSIGN_OR_RETURN(p.devnull, OpenFile("/dev/null", O_RDONLY));
  return p;
}

// The child after fork: prepares, waits for the start byte, execs. A step that fails is reported
// through the error pipe.
[[noreturn]] void RunChild(const ChildPlan& plan, const ChildPipes& pipes) {
  const WorkloadOptions& options = plan.options;
  const int err = pipes.error.second.get();
  if (::setpgid(0, 0) != 0) ChildFail(err, ChildStage::kSetpgid);
  if (::dup2(pipes.devnull.get(), 0) < 0 || ::dup2(pipes.output.second.get(), 1) < 0 ||
      ::dup2(pipes.output.second.get(), 2) < 0) {
    ChildFail(err, ChildStage::kDup2);
  }
  if (options.cpu >= 0 && ::sched_setaffinity(0, sizeof plan.cpus, &plan.cpus) != 0) {
    ChildFail(err, ChildStage::kSchedSetaffinity);
  }
  if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) {
    ChildFail(err, ChildStage::kChdir);
  }
  if (!CloseOnExecAbove2()) ChildFail(err, ChildStage::kCloseRange);
  for (const auto& [resource, value] : plan.limits) {
    const rlimit lim = {value, value};
    if (::setrlimit(resource, &lim) != 0) ChildFail(err, ChildStage::kSetrlimit);
  }
  if (options.user && (::setgroups(0, nullptr) != 0 || ::setgid(options.user->gid) != 0 ||
                       ::setuid(options.user->uid) != 0)) {
    ChildFail(err, ChildStage::kSetuid);
  }
  // A kernel must not outlive a killed agent. After the privilege drop, which clears the
  // parent-death signal; an agent already gone by then is seen as a new parent.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail(err, ChildStage::kPdeathsig);
  if (::getppid() != plan.agent) ::_exit(127);
  ResetSignals();
  // The child's copy of the start pipe's write end goes: should the agent die before it starts
  // the child, the read below ends (EOF) instead of blocking for good with the agent's sockets
  // held open.
  ::close(pipes.start.second.get());
  char go = 0;
  ssize_t n;
  do {
    n = ::read(pipes.start.first.get(), &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(127);  // the agent gave up on this run
  ::execve(plan.argv[0], plan.argv.data(), environ);
  ChildFail(err, ChildStage::kExec);
}

}  // namespace

Result<Workload> Workload::Prepare(const WorkloadOptions& options) {
  const ChildPlan plan(options);
  KT_ASSIGN_OR_RETURN(ChildPipes pipes, MakeChildPipes());
  const pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork", errno);
  if (pid == 0) RunChild(plan, pipes);

  Workload w;
  w.options_ = options;
  w.pid_ = pid;
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  w.start_fd_ = std::move(pipes.start.second);
  w.error_fd_ = std::move(pipes.error.first);
  w.output_fd_ = std::move(pipes.output.first);
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    const int e = errno;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    w.reaped_ = true;
    return ErrnoError("pidfd_open", e);
  }
  w.pid_fd_.Reset(pidfd);
  return w;
}

Workload::Workload(Workload&& other) noexcept
    : options_(std::move(other.options_)),
      pid_(std::exchange(other.pid_, -1)),
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
  std::vector<int> watched = watch_fds_;
  bool exited = false;
  while (!exited) {
    int timeout_ms = -1;
    if (deadline && !p.timed_out) {
      const uint64_t now = MonotonicNs();
      if (now >= deadline) {
        KillGroup();
        p.timed_out = true;
      } else {
        timeout_ms = static_cast<int>((deadline - now) / 1000000u) + 1;
      }
    }
    std::vector<pollfd> fds = {{pid_fd_.get(), POLLIN, 0},
                               {p.result.cancelled ? -1 : p.cancel_fd, POLLIN, 0},
                               {p.output_open ? output_fd_.get() : -1, POLLIN, 0}};
    for (int fd : watched) fds.push_back({fd, POLLIN, 0});
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) break;
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
    if (p.output_open && fds[2].revents) p.output_open = ReadOutput(p);
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
