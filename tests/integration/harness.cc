#include "tests/integration/harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/fs.h"
#include "common/results.h"

namespace ktune::test {
namespace fs = std::filesystem;

namespace {

// How long a khost or agentd the tests started may take to end before the harness calls it hung:
// far beyond what any case needs (the slowest program takes about a minute on a loaded 2-core
// machine under ASan), well within ctest's limit per file.
constexpr int kProgramLimitS = 300;
// How long agentd may take to stop after SIGTERM.
constexpr int kStopLimitS = 30;

// Waits for child `pid` to end, at most `limit_s` seconds; false when it is still running.
bool WaitWithin(int pid, int* status, int limit_s) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    int ready;
    while ((ready = ::poll(&p, 1, limit_s * 1000)) < 0 && errno == EINTR) {
    }
    ::close(pidfd);
    if (ready == 0) return false;
  }
  while (::waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  return true;
}

// What each thread of a process that did not end is waiting in, from /proc, for the failure.
std::string DescribeThreads(int pid) {
  std::ostringstream out;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    auto field = [&](const char* name) {
      auto text = ReadFile((task.path() / name).string());
      std::string v = text.ok() ? *text : "?";
      while (!v.empty() && v.back() == '\n') v.pop_back();
      return v;
    };
    out << "\n  thread " << task.path().filename().string() << " (" << field("comm")
        << "): waits in " << field("wchan");
  }
  return out.str();
}

// Ends a program that did not: says so (stderr now, for a CI log, and as a failed check) and
// kills it.
void ReportHung(int pid, const std::string& what) {
  const std::string message = "harness: " + what + DescribeThreads(pid);
  std::cerr << message << std::endl;
  FAIL_CHECK(message);
  ::kill(pid, SIGKILL);
}

}  // namespace

std::string BinDir() {
  return KTUNE_BIN_DIR;
}
std::string ElvesDir() {
  return KTUNE_ELVES_DIR;
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "ktune-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  // Searchable by others (not listable): an agentd running as root runs kernels as nobody, who
  // must reach the store inside.
  ::chmod(tmpl.c_str(), 0711);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  // Blobs are read-only; make them removable first.
  for (auto it = fs::recursive_directory_iterator(path_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(path_, ec);
}

AgentProcess::AgentProcess(const std::string& store_dir, const std::vector<std::string>& extra,
                           const std::vector<std::string>& wrapper, const std::string& exe) {
  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> args = wrapper;
  for (std::string a : {exe.empty() ? BinDir() + "/agentd" : exe, std::string("--listen"),
                        std::string("127.0.0.1:0"), std::string("--store"), store_dir,
                        std::string("--log-level"), std::string("warn")}) {
    args.push_back(std::move(a));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string line;
  char c;
  while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(out[0]);
  const std::string marker = " listening on ";
  const size_t at = line.find(marker);
  if (at == std::string::npos) throw std::runtime_error("agentd did not start: " + line);
  const size_t end = line.find(' ', at + marker.size());
  auto hp = ParseHostPort(line.substr(at + marker.size(), end - at - marker.size()));
  if (!hp.ok()) throw std::runtime_error("agentd said: " + line);
  address_ = *hp;
}

AgentProcess::~AgentProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    if (!WaitWithin(pid_, &status, kStopLimitS)) {
      ReportHung(pid_, "agentd (pid " + std::to_string(pid_) + ") did not stop within " +
                           std::to_string(kStopLimitS) + " s of SIGTERM; killed");
      ::waitpid(pid_, &status, 0);
    }
  }
}

void AgentProcess::Kill() {
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::vector<std::string> CommandResult::ErrLines() const {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : err) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

Program::Program(const std::string& exe, const std::vector<std::string>& args,
                 const std::string& scratch_dir,
                 const std::map<std::string, std::string>& extra_env) {
  // The environment by hand: Boost 1.74's environment lookup reads past the end of entries
  // shorter than the name looked up (an ASan report).
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (name != "KTUNE_AGENT" && !extra_env.count(name)) env.push_back(entry);
  }
  for (const auto& [k, v] : extra_env) env.push_back(k + "=" + v);
  std::vector<std::string> argv = {exe};
  argv.insert(argv.end(), args.begin(), args.end());
  auto pointers = [](std::vector<std::string>& strings) {
    std::vector<char*> p;
    for (std::string& s : strings) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
  };
  std::vector<char*> argv_p = pointers(argv), env_p = pointers(env);
  exe_ = exe;
  out_path_ = scratch_dir + "/run.out";
  err_path_ = scratch_dir + "/run.err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  const int rc =
      exe.find('/') == std::string::npos
          ? posix_spawnp(&pid_, exe.c_str(), &actions, nullptr, argv_p.data(), env_p.data())
          : posix_spawn(&pid_, exe.c_str(), &actions, nullptr, argv_p.data(), env_p.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
}

Program::~Program() {
  if (pid_ > 0) {
    Kill(SIGKILL);
    Wait();
  }
}

void Program::Kill(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

CommandResult Program::Wait() {
  int status = 0;
  if (!WaitWithin(pid_, &status, kProgramLimitS)) {
    ReportHung(pid_, exe_ + " (pid " + std::to_string(pid_) + ") did not end within " +
                         std::to_string(kProgramLimitS) + " s; killed");
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out_path_).value();
  r.err = ReadFile(err_path_).value();
  return r;
}

CommandResult RunProgram(const std::string& exe, const std::vector<std::string>& args,
                         const std::string& scratch_dir,
                         const std::map<std::string, std::string>& extra_env) {
  return Program(exe, args, scratch_dir, extra_env).Wait();
}

CommandResult RunKhost(const std::vector<std::string>& args, const std::string& home,
                       const std::map<std::string, std::string>& extra_env) {
  std::map<std::string, std::string> env = {{"XDG_CONFIG_HOME", home + "/config"},
                                            {"XDG_CACHE_HOME", home + "/cache"},
                                            {"XDG_DATA_HOME", home + "/data"}};
  for (const auto& [k, v] : extra_env) env[k] = v;
  return RunProgram(BinDir() + "/khost", args, home, env);
}

std::unique_ptr<Program> StartKhost(const std::vector<std::string>& args, const std::string& home,
                                    const std::string& scratch_dir) {
  fs::create_directories(scratch_dir);
  return std::make_unique<Program>(
      BinDir() + "/khost", args, scratch_dir,
      std::map<std::string, std::string>{{"XDG_CONFIG_HOME", home + "/config"},
                                         {"XDG_CACHE_HOME", home + "/cache"},
                                         {"XDG_DATA_HOME", home + "/data"}});
}

bool WaitFor(const std::function<bool()>& done, double limit_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<RepetitionRow> RowsOf(const std::string& results_path) {
  auto text = ReadFile(results_path);
  if (!text.ok()) return {};
  auto file = ParseResultsCsv(*text);
  return file.ok() ? std::move(file->rows) : std::vector<RepetitionRow>{};
}

size_t RowsIn(const std::string& results_path) {
  return RowsOf(results_path).size();
}

std::string OnlyResults(const std::string& kernel_run_dir) {
  std::string found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kernel_run_dir + "/results", ec)) {
    if (e.path().extension() == ".csv") found = e.path().string();
  }
  return found;
}

void MakeKernelDir(const std::string& root, const std::string& kernel,
                   const std::vector<TestVariant>& variants, const std::string& elves_dir) {
  const fs::path run = fs::path(root) / kernel / "run";
  fs::create_directories(run / "bin");
  fs::create_directories(run / "test_data");
  std::ofstream(run / "test_data/matrix_4x4_1.txt") << "4 4\n1 2 3 4\n5 6 7 8\n";
  nlohmann::ordered_json doc;
  doc["variants"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < variants.size(); ++i) {
    const TestVariant& v = variants[i];
    const std::string name = std::to_string(i) + "_" + v.elf;
    fs::copy_file(fs::path(elves_dir.empty() ? ElvesDir() : elves_dir) / v.elf, run / "bin" / name,
                  fs::copy_options::overwrite_existing);
    nlohmann::ordered_json j;
    for (const auto& [k, val] : v.params) j[k] = val;
    j["elf_path"] = kernel + "/run/bin/" + name;
    j["asm_path"] = kernel + "/run/bin/" + name + ".s";
    if (!v.args.empty()) j["args"] = v.args;
    doc["variants"].push_back(j);
  }
  doc["perf_files"]["stat"] = kernel + "/run/perf_stats.csv";
  std::ofstream(run / "configs.json") << doc.dump(2);
}

uint16_t UnusedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);  // bound, never listened: connecting is refused
  return ntohs(addr.sin_port);
}

struct FaultProxy::State {
  Faults faults;
  HostPort target;
  int listen_fd = -1;
  std::atomic<uint64_t> forwarded{0};
  std::atomic<bool> stopping{false};
  std::thread thread;
};

namespace {

int ConnectTo(const HostPort& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(target.port);
  ::inet_pton(AF_INET, target.host.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

FaultProxy::FaultProxy(const HostPort& target, Faults faults) : state_(new State) {
  state_->faults = faults;
  state_->target = target;
  state_->listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(state_->listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(state_->listen_fd, 8) != 0 ||
      ::getsockname(state_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("proxy: cannot listen");
  }
  address_ = {"127.0.0.1", ntohs(addr.sin_port)};
  State* st = state_.get();
  st->thread = std::thread([st] {
    while (!st->stopping) {
      pollfd lp{st->listen_fd, POLLIN, 0};
      if (::poll(&lp, 1, 100) <= 0) continue;
      const int host = ::accept4(st->listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (host < 0) continue;
      const int agent = ConnectTo(st->target);
      if (agent < 0) {
        ::close(host);
        continue;
      }
      uint64_t from_agent = 0;
      bool cut = false;
      while (!st->stopping && !cut) {
        pollfd fds[2] = {{host, POLLIN, 0}, {agent, POLLIN, 0}};
        if (::poll(fds, 2, 100) <= 0) continue;
        for (int side = 0; side < 2 && !cut; ++side) {
          if (!(fds[side].revents & (POLLIN | POLLHUP | POLLERR))) continue;
          char buf[4096];
          ssize_t n = ::read(fds[side].fd, buf, sizeof buf);
          if (n <= 0) {
            cut = true;
            break;
          }
          const uint64_t before = st->forwarded;
          if (st->faults.cut_after && before + static_cast<uint64_t>(n) > *st->faults.cut_after) {
            n = static_cast<ssize_t>(*st->faults.cut_after - before);
            cut = true;
          }
          if (side == 1 && st->faults.flip_after && *st->faults.flip_after >= from_agent &&
              *st->faults.flip_after < from_agent + static_cast<uint64_t>(n)) {
            buf[*st->faults.flip_after - from_agent] ^= 0x01;
          }
          if (side == 1) from_agent += static_cast<uint64_t>(n);
          if (n > 0 && ::write(side == 0 ? agent : host, buf, static_cast<size_t>(n)) < 0)
            cut = true;
          st->forwarded += static_cast<uint64_t>(n);
        }
      }
      ::close(host);
      ::close(agent);
    }
  });
}

FaultProxy::~FaultProxy() {
  state_->stopping = true;
  if (state_->thread.joinable()) state_->thread.join();
  ::close(state_->listen_fd);
}

uint64_t FaultProxy::bytes_forwarded() const {
  return state_->forwarded;
}

}  // namespace ktune::test
