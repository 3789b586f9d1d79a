#include "host/util/subprocess.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <boost/process.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::host {

namespace bp = boost::process;

Result<ToolRun> RunTool(const std::vector<std::string>& argv, const ToolOptions& options) {
  if (argv.empty()) return InvalidArgument("empty command");
  const std::string exe = FindInPath(argv[0]);
  if (exe.empty()) return NotFound(argv[0] + ": not found in PATH");
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  const std::string cwd = options.cwd.empty() ? "." : options.cwd;
  ToolRun run;
  std::error_code ec;
  // Boost.Process opens redirection files without O_TRUNC: a shorter new output would leave the
  // old one's tail behind.
  if (!options.stdout_path.empty()) std::filesystem::remove(options.stdout_path, ec);
  const std::string in_path = options.stdin_path.empty() ? "/dev/null" : options.stdin_path;
  bp::ipstream out;
  bp::child child;
  if (options.stdout_path.empty()) {
    child = bp::child(exe, bp::args(args), bp::start_dir(cwd), (bp::std_out & bp::std_err) > out,
                      bp::std_in < in_path, ec);
  } else if (options.stderr_too) {
    child = bp::child(exe, bp::args(args), bp::start_dir(cwd),
                      (bp::std_out & bp::std_err) > options.stdout_path, bp::std_in < in_path,
                      bp::limit_handles, ec);
  } else {
    child = bp::child(exe, bp::args(args), bp::start_dir(cwd), bp::std_out > options.stdout_path,
                      bp::std_err > out, bp::std_in < in_path, ec);
  }
  if (ec) return IoError("cannot start " + exe + ": " + ec.message());
  // Boost 1.74's wait_for spins and is not thread-safe: a watchdog thread kills the tool instead.
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false, killed = false;
  std::thread watchdog;
  if (options.timeout_seconds > 0) {
    watchdog = std::thread([&, pid = child.id()] {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, std::chrono::duration<double>(options.timeout_seconds),
                       [&] { return finished; })) {
        ::kill(pid, SIGKILL);
        killed = true;
      }
    });
  }
  if (!options.stderr_too) {
    run.output.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  }
  if (watchdog.joinable()) {
    // Wait for the exit without reaping, so the watchdog can never signal a reused pid.
    siginfo_t info;
    while (::waitid(P_PID, static_cast<id_t>(child.id()), &info, WEXITED | WNOWAIT) != 0 &&
           errno == EINTR) {
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      finished = true;
    }
    cv.notify_one();
    watchdog.join();
  }
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

}  // namespace ktune::host
