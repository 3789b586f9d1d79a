#include "host/util/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::host {

namespace bp = boost::process;

namespace {

// In the child, between fork and exec: every fd above stderr becomes close-on-exec, so that a tool
// left running (the ssh master, which outlives khost) holds none of khost's fds, such as another
// tool's output pipe opened by a thread meanwhile. Instead of Boost 1.74's bp::limit_handles, one
// global object with a mutable list, which threads spawning at once corrupt.
struct KeepNoHandles : bp::extend::handler {
  template <typename Executor>
  void on_exec_setup(Executor&) const {
    if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
    // Kernels before 5.11: one fd at a time, up to the limit.
    rlimit limit{};
    const int top = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < (1u << 20)
                        ? static_cast<int>(limit.rlim_cur)
                        : (1 << 20);
    for (int fd = 3; fd < top; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
};

// Starts `exe` with its output where `options` say (captured in `out` when not to a file) and
// `in` as its stdin.
bp::child StartTool(const std::string& exe, const std::vector<std::string>& args,
                    const ToolOptions& options, FILE* in, bp::ipstream& out, std::error_code& ec) {
  const std::string cwd = options.cwd.empty() ? "." : options.cwd;
  bp::environment env = boost::this_process::environment();
  for (const std::string& e : options.env) {
    const size_t eq = e.find('=');
    env[e.substr(0, eq)] = eq == std::string::npos ? "" : e.substr(eq + 1);
  }
  if (options.stdout_path.empty()) {
    return bp::child(exe, bp::args(args), bp::start_dir(cwd), env,
                     (bp::std_out & bp::std_err) > out, bp::std_in < in, ec);
  }
  if (options.stderr_too) {
    return bp::child(exe, bp::args(args), bp::start_dir(cwd), env,
                     (bp::std_out & bp::std_err) > options.stdout_path, bp::std_in < in,
                     KeepNoHandles(), ec);
  }
  return bp::child(exe, bp::args(args), bp::start_dir(cwd), env, bp::std_out > options.stdout_path,
                   bp::std_err > out, bp::std_in < in, ec);
}

// SIGKILLs a child that outlives its timeout (Boost 1.74's wait_for spins and is not
// thread-safe, so a thread of its own waits instead). No timeout: nothing.
class Watchdog {
 public:
  Watchdog(pid_t pid, double timeout_seconds) : pid_(pid) {
    if (timeout_seconds <= 0) return;
    thread_ = std::thread([this, timeout_seconds] {
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                        [&] { return finished_; })) {
        ::kill(pid_, SIGKILL);
        killed_ = true;
      }
    });
  }

  // Waits for the child's exit without reaping it, so the watchdog can never signal a reused
  // pid, then stops the watchdog. True when it had to kill the child.
  bool Finish() {
    if (!thread_.joinable()) return false;
    siginfo_t info;
    while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 &&
           errno == EINTR) {
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
    }
    cv_.notify_one();
    thread_.join();
    return killed_;
  }

  ~Watchdog() { Finish(); }

 private:
  const pid_t pid_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false, killed_ = false;
  std::thread thread_;
};

}  // namespace

Result<ToolRun> RunTool(const std::vector<std::string>& argv, const ToolOptions& options) {
  if (argv.empty()) return InvalidArgument("empty command");
  const std::string exe = FindInPath(argv[0]);
  if (exe.empty()) return NotFound(argv[0] + ": not found in PATH");
  ToolRun run;
  std::error_code ec;
  // Boost.Process opens redirection files without O_TRUNC: a shorter new output would leave the
  // old one's tail behind.
  if (!options.stdout_path.empty()) std::filesystem::remove(options.stdout_path, ec);
  // Opened here, read-only: Boost 1.74's `std_in < path` opens the path read-write (and creates
  // it), which fails for a file being executed (ETXTBSY: khost agent deploy sending the agentd a
  // local agent runs) or not writable, and its child then fails with EBADF.
  const std::string in_path = options.stdin_path.empty() ? "/dev/null" : options.stdin_path;
  const std::unique_ptr<FILE, int (*)(FILE*)> in(std::fopen(in_path.c_str(), "rbe"), &std::fclose);
  if (!in) return ErrnoError("cannot read " + in_path + " for " + argv[0], errno);
  bp::ipstream out;
  bp::child child = StartTool(exe, std::vector<std::string>(argv.begin() + 1, argv.end()), options,
                              in.get(), out, ec);
  if (ec) return IoError("cannot start " + exe + ": " + ec.message());
  Watchdog watchdog(child.id(), options.timeout_seconds);
  if (!options.stderr_too) {
    run.output.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  }
  const bool killed = watchdog.Finish();
  child.wait(ec);
  if (killed) {
    return Unavailable(CommandLine(argv) + ": killed after " +
                       FormatDouble(options.timeout_seconds) + " s");
  }
  if (ec) return IoError("waiting for " + exe + ": " + ec.message());
  if (options.stderr_too) {
    Result<std::string> text = ReadFile(options.stdout_path);
    if (text.ok()) run.output = std::move(*text);
  }
  // Boost reports a signal death as a non-zero exit code; native_exit_code tells them apart.
  const int status = child.native_exit_code();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return run;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_=+./,:@%") == std::string::npos;
    if (plain) {
      line += a;
      continue;
    }
    line += '\'';
    for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

void ParallelFor(size_t count, size_t workers, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) task(i);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(workers, count); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
}

std::string LastLines(const std::string& text, size_t n) {
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') --end;
  size_t start = end;
  for (size_t lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == n) break;
  }
  return text.substr(start, end - start);
}

std::string LastLine(std::string_view text) {
  const size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return "";
  const size_t nl = text.rfind('\n', end);
  const size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
  return std::string(Trim(text.substr(begin, end + 1 - begin)));
}

}  // namespace ktune::host
