#include "agent/measure/workload.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
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

// What the child reports through the error pipe when a step before exec fails.
struct ChildFailure {
  int stage;  // index into kStages
  int error;
};
constexpr const char* kStages[] = {"setpgid", "dup2",        "sched_setaffinity", "chdir",
                                   "exec",    "close_range", "setrlimit",         "setuid"};

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

[[noreturn]] void ChildFail(int fd, int stage) {
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

Result<Workload> Workload::Prepare(const WorkloadOptions& options) {
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::string> argv_storage;
  argv_storage.push_back(options.path);
  argv_storage.insert(argv_storage.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (options.cpu >= 0) CPU_SET(options.cpu, &cpus);

  std::vector<std::pair<int, rlim_t>> limits;
  if (options.limits.address_space_bytes) {
    limits.emplace_back(RLIMIT_AS, options.limits.address_space_bytes);
  }
  if (options.limits.processes) limits.emplace_back(RLIMIT_NPROC, options.limits.processes);
  if (options.limits.file_size_bytes) {
    limits.emplace_back(RLIMIT_FSIZE, options.limits.file_size_bytes);
  }

  KT_ASSIGN_OR_RETURN(auto start, MakePipe());
  KT_ASSIGN_OR_RETURN(auto error, MakePipe());
  KT_ASSIGN_OR_RETURN(auto output, MakePipe());
  KT_ASSIGN_OR_RETURN(ScopedFd devnull, OpenFile("/dev/null", O_RDONLY));

  const pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork", errno);
  if (pid == 0) {
    const int err = error.second.get();
    if (::setpgid(0, 0) != 0) ChildFail(err, 0);
    if (::dup2(devnull.get(), 0) < 0 || ::dup2(output.second.get(), 1) < 0 ||
        ::dup2(output.second.get(), 2) < 0) {
      ChildFail(err, 1);
    }
    if (options.cpu >= 0 && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0) ChildFail(err, 2);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ChildFail(err, 3);
    if (!CloseOnExecAbove2()) ChildFail(err, 5);
    for (const auto& [resource, value] : limits) {
      const rlimit lim = {value, value};
      if (::setrlimit(resource, &lim) != 0) ChildFail(err, 6);
    }
    if (options.user && (::setgroups(0, nullptr) != 0 || ::setgid(options.user->gid) != 0 ||
                         ::setuid(options.user->uid) != 0)) {
      ChildFail(err, 7);
    }
    ResetSignals();
    char go = 0;
    ssize_t n;
    do {
      n = ::read(start.first.get(), &go, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(127);  // the agent gave up on this run
    ::execve(argv[0], argv.data(), environ);
    ChildFail(err, 4);
  }

  Workload w;
  w.options_ = options;
  w.pid_ = pid;
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  w.start_fd_ = std::move(start.second);
  w.error_fd_ = std::move(error.first);
  w.output_fd_ = std::move(output.first);
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

WorkloadResult Workload::Run(const std::function<void()>& at_exit) {
  WorkloadResult r;
  BoundedOutput out(options_.output_head_bytes, options_.output_tail_bytes);
  char buf[1 << 16];
  // Reads what is available; false at end of output.
  auto read_output = [&]() {
    const ssize_t got = ::read(output_fd_.get(), buf, sizeof buf);
    if (got < 0 && errno == EINTR) return true;
    if (got <= 0) return false;
    out.Append(buf, static_cast<size_t>(got));
    if (options_.on_output) options_.on_output(std::string_view(buf, static_cast<size_t>(got)));
    return true;
  };
  const int cancel_fd = options_.canceller ? options_.canceller->fd() : -1;
  auto kill_group = [&] {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  };

  r.start_unix_ns = RealtimeNs();
  const uint64_t t0 = MonotonicNs();
  const char go = 1;
  (void)WriteAll(start_fd_.get(), std::string_view(&go, 1), "start pipe");
  start_fd_.Reset();

  const uint64_t deadline = options_.timeout_ns ? t0 + options_.timeout_ns : 0;
  std::vector<int> watched = watch_fds_;
  bool exited = false, timed_out = false, output_open = true;
  uint64_t t1 = 0;
  while (!exited) {
    int timeout_ms = -1;
    if (deadline && !timed_out) {
      const uint64_t now = MonotonicNs();
      if (now >= deadline) {
        kill_group();
        timed_out = true;
      } else {
        timeout_ms = static_cast<int>((deadline - now) / 1000000u) + 1;
      }
    }
    std::vector<pollfd> fds = {{pid_fd_.get(), POLLIN, 0},
                               {r.cancelled ? -1 : cancel_fd, POLLIN, 0},
                               {output_open ? output_fd_.get() : -1, POLLIN, 0}};
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
      kill_group();
      r.cancelled = true;
    }
    if (fds[0].revents) {
      t1 = MonotonicNs();
      exited = true;
    }
    if (output_open && fds[2].revents) output_open = read_output();
  }
  r.wall_ns = t1 > t0 ? t1 - t0 : 0;

  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  while (::waitid(P_PIDFD, static_cast<id_t>(pid_fd_.get()), &info, WEXITED) != 0 &&
         errno == EINTR) {
  }
  reaped_ = true;
  if (at_exit) at_exit();
  // Whatever the workload left behind in its process group goes too, so it cannot disturb the
  // next measurement; then the rest of its output is read, for a bounded time.
  ::kill(-pid_, SIGKILL);
  const uint64_t drain_end = MonotonicNs() + kDrainAfterExitNs;
  while (output_open) {
    const uint64_t now = MonotonicNs();
    if (now >= drain_end) break;
    pollfd fds[2] = {{output_fd_.get(), POLLIN, 0}, {cancel_fd, POLLIN, 0}};
    const int n = ::poll(fds, 2, static_cast<int>((drain_end - now) / 1000000u) + 1);
    if (n < 0 && errno != EINTR) break;
    if (fds[1].revents) break;  // shutting down: the rest of the output does not matter
    if (n <= 0) continue;
    output_open = read_output();
  }
  output_fd_.Reset();

  ChildFailure failure;
  const ssize_t fn = ::read(error_fd_.get(), &failure, sizeof failure);
  if (fn == static_cast<ssize_t>(sizeof failure) && failure.stage >= 0 &&
      failure.stage < static_cast<int>(std::size(kStages))) {
    r.outcome.kind = OutcomeKind::kLaunchFailed;
    r.launch_error = std::string(kStages[failure.stage]) + " " + options_.path + ": " +
                     std::strerror(failure.error);
  } else if (timed_out) {
    r.outcome.kind = OutcomeKind::kTimedOut;
  } else if (info.si_code == CLD_EXITED) {
    r.outcome = {OutcomeKind::kExited, info.si_status};
  } else {
    r.outcome = {OutcomeKind::kSignaled, info.si_status};
  }
  r.output = out.Text();
  r.output_bytes = out.total();
  return r;
}

}  // namespace ktune::agent
