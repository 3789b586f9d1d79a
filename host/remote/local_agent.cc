#include "host/remote/local_agent.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "host/util/subprocess.h"

extern char** environ;

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

// agentd's lock on its store (agent/store/layout.h).
std::string StoreLockPath(const std::string& store) {
  return store + "/agentd.lock";
}
std::string AddressPath(const std::string& store) {
  return store + ".address";
}

// Opens (creating) `path` and locks it with `op` (LOCK_SH or LOCK_EX), waiting for it.
Result<ScopedFd> Locked(const std::string& path, int op) {
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_RDWR | O_CREAT));
  while (::flock(fd.get(), op) != 0) {
    if (errno != EINTR) return ErrnoError("lock " + path, errno);
  }
  return fd;
}

// The address of the agent holding the store, `pid`, from the address file that the command
// which started it wrote: "<pid> <host:port>". None when the file names another process (an agent
// started by hand, or one whose starter died before writing the file).
std::optional<HostPort> AddressOf(const std::string& store, long pid) {
  const Result<std::string> text = ReadFile(AddressPath(store));
  const std::vector<std::string> words = text.ok() ? SplitWords(*text) : std::vector<std::string>();
  if (words.size() != 2 || words[0] != std::to_string(pid)) return std::nullopt;
  const Result<HostPort> address = ParseHostPort(words[1]);
  return address.ok() ? std::optional<HostPort>(*address) : std::nullopt;
}

// Whether process `pid` has ended: gone, or a zombie (its exit only waits to be reaped). Reaps
// it when it is this command's child.
bool Ended(long pid) {
  if (::waitpid(static_cast<pid_t>(pid), nullptr, WNOHANG) == pid) return true;
  const Result<std::string> stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return true;
  const size_t state = stat->rfind(')');  // "pid (comm) S ...": the comm may hold anything
  return state == std::string::npos || stat->compare(state, 3, ") Z") == 0;
}

// Stops the agent holding the store: SIGTERM, then SIGKILL if it has not ended 30 s later. It has
// ended, not only let go of the store, when this returns: a new agent never starts beside it.
void StopAgent(long pid) {
  ::kill(static_cast<pid_t>(pid), SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool killed = false;
  while (!Ended(pid)) {
    if (!killed && std::chrono::steady_clock::now() > deadline) {
      ::kill(static_cast<pid_t>(pid), SIGKILL);  // then it ends at once, child of ours or not
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

long AgentHoldingStore(const std::string& store_dir) {
  const std::string path = StoreLockPath(store_dir);
  auto fd = OpenFile(path, O_RDONLY);
  if (!fd.ok()) return 0;
  if (::flock(fd->get(), LOCK_SH | LOCK_NB) == 0) return 0;  // closing the fd unlocks it
  auto text = ReadFilePrefix(path, 32);
  auto pid = text.ok() ? ParseInt64(Trim(*text)) : Result<int64_t>(InvalidArgument(""));
  return pid.ok() && *pid > 0 ? static_cast<long>(*pid) : -1;
}

Result<std::unique_ptr<LocalAgent>> LocalAgent::Open(const std::string& store_dir,
                                                     const std::string& agentd_path) {
  std::unique_ptr<LocalAgent> a(new LocalAgent());
  a->store_ = fs::absolute(store_dir).lexically_normal().string();
  KT_RETURN_IF_ERROR(MakeDirs(fs::path(a->store_).parent_path().string()));
  KT_ASSIGN_OR_RETURN(const ScopedFd starting, Locked(a->store_ + ".lock", LOCK_EX));
  KT_ASSIGN_OR_RETURN(a->users_, Locked(a->store_ + ".users", LOCK_SH));
  if (const long pid = AgentHoldingStore(a->store_); pid != 0) {
    if (const std::optional<HostPort> address = AddressOf(a->store_, pid)) {
      a->address_ = *address;
      return a;
    }
    return Unavailable("agentd pid " + std::to_string(pid) + " holds the local agent's store " +
                       a->store_ +
                       ", but no khost command knows its address (started by hand, or by a khost "
                       "that died as it started it): stop it, or give --agent");
  }
  KT_RETURN_IF_ERROR(a->Start(agentd_path));
  a->started_ = true;
  return a;
}

namespace {

// agentd on a store of its own session, stdin from /dev/null, stdout to `stdout_fd`, stderr
// appended to `log`: its pid.
Result<pid_t> SpawnAgentd(const std::string& agentd_path, const std::string& store, int stdout_fd,
                          const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::vector<std::string> args = {agentd_path, "--listen",    "127.0.0.1:0", "--store",
                                   store,       "--log-level", "warn"};
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, agentd_path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) return ErrnoError("cannot start " + agentd_path, spawned);
  return pid;
}

// The first line `fd` gives (at most 4096 bytes), without its '\n'.
std::string ReadFirstLine(int fd) {
  std::string line;
  char c;
  while (line.size() < 4096) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line += c;
  }
  return line;
}

}  // namespace

Status LocalAgent::Start(const std::string& agentd_path) {
  if (::access(agentd_path.c_str(), X_OK) != 0) {
    return NotFound("no agent given and no agentd to start at " + agentd_path +
                    " (set --agent, KTUNE_AGENT or KTUNE_AGENTD)");
  }
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
  ScopedFd read_end(out[0]), write_end(out[1]);
  // Its messages go to a log beside the store, not to this command's terminal or pipe, which the
  // agent may outlive (a `khost run | tee` would wait for it).
  const std::string log = store_ + ".log";
  std::error_code ec;
  const uintmax_t log_before = fs::exists(log, ec) ? fs::file_size(log, ec) : 0;
  KT_ASSIGN_OR_RETURN(const pid_t pid, SpawnAgentd(agentd_path, store_, write_end.get(), log));
  write_end.Reset();
  // "agentd <version> listening on <host:port> store <dir>"
  const std::string line = ReadFirstLine(read_end.get());
  const std::string marker = " listening on ";
  const size_t at = line.find(marker);
  if (at == std::string::npos) {
    ::waitpid(pid, nullptr, 0);
    if (line.empty()) {
      const Result<std::string> said = ReadFile(log);  // what this agent said, not earlier ones
      return Unavailable("local agentd exited before listening: " +
                         (said.ok()
                              ? LastLine(said->substr(std::min<size_t>(log_before, said->size())))
                              : said.status().message()) +
                         " (" + log + ")");
    }
    return ProtocolError("unexpected agentd output: " + line);
  }
  const size_t end = line.find(' ', at + marker.size());
  KT_ASSIGN_OR_RETURN(address_,
                      ParseHostPort(line.substr(at + marker.size(), end - at - marker.size())));
  return WriteFileAtomic(AddressPath(store_),
                         std::to_string(pid) + " " + address_.ToString() + "\n");
}

LocalAgent::~LocalAgent() {
  users_.Reset();  // this command no longer uses it
  auto stopping = Locked(store_ + ".lock", LOCK_EX);
  if (!stopping.ok()) return;
  // The last user: nobody else holds a shared lock (a command joining waits for ours above).
  auto last = OpenFile(store_ + ".users", O_RDWR);
  if (!last.ok() || ::flock(last->get(), LOCK_EX | LOCK_NB) != 0) return;
  // Only an agent a khost command started (its pid in the address file), never one started by
  // hand on the store.
  if (const long pid = AgentHoldingStore(store_); pid > 0 && AddressOf(store_, pid)) {
    StopAgent(pid);
  }
  ::unlink(AddressPath(store_).c_str());
}

}  // namespace ktune::host
