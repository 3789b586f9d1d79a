#include "host/remote/local_agent.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "common/strings.h"

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

// "<pid> <host:port>" as the address file holds it.
Result<HostPort> ReadAddress(const std::string& store) {
  KT_ASSIGN_OR_RETURN(const std::string text, ReadFile(AddressPath(store)));
  const std::vector<std::string> words = SplitWords(text);
  if (words.size() != 2) return InvalidArgument(AddressPath(store) + ": malformed");
  return ParseHostPort(words[1]);
}

// Stops the agent holding the store: SIGTERM, then SIGKILL if it has not let go of the store
// 30 s later.
void StopAgent(const std::string& store, long pid) {
  ::kill(static_cast<pid_t>(pid), SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (AgentHoldingStore(store) == pid) {
    ::waitpid(static_cast<pid_t>(pid), nullptr, WNOHANG);  // ours, when this command started it
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(static_cast<pid_t>(pid), SIGKILL);
      ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::waitpid(static_cast<pid_t>(pid), nullptr, WNOHANG);
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
  if (AgentHoldingStore(a->store_) != 0) {
    if (auto address = ReadAddress(a->store_); address.ok()) {
      a->address_ = *address;
      return a;
    }
    return Unavailable("an agentd not started by khost holds the local agent's store " +
                       a->store_ + " (pid " + std::to_string(AgentHoldingStore(a->store_)) +
                       "); stop it, or give --agent");
  }
  KT_RETURN_IF_ERROR(a->Start(agentd_path));
  a->started_ = true;
  return a;
}

Status LocalAgent::Start(const std::string& agentd_path) {
  if (::access(agentd_path.c_str(), X_OK) != 0) {
    return NotFound("no agent given and no agentd to start at " + agentd_path +
                    " (set --agent, KTUNE_AGENT or KTUNE_AGENTD)");
  }
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
  ScopedFd read_end(out[0]), write_end(out[1]);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::vector<std::string> args = {agentd_path, "--listen", "127.0.0.1:0", "--store",
                                   store_,      "--log-level", "warn"};
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, agentd_path.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) return ErrnoError("cannot start " + agentd_path, spawned);
  write_end.Reset();
  // "agentd <version> listening on <host:port> store <dir>"
  std::string line;
  char c;
  while (line.size() < 4096) {
    const ssize_t n = ::read(read_end.get(), &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line += c;
  }
  const std::string marker = " listening on ";
  const size_t at = line.find(marker);
  if (at == std::string::npos) {
    ::waitpid(pid, nullptr, 0);
    if (line.empty()) return Unavailable("local agentd exited before listening (see its messages above)");
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
  if (const long pid = AgentHoldingStore(store_); pid > 0) StopAgent(store_, pid);
  ::unlink(AddressPath(store_).c_str());
}

}  // namespace ktune::host
