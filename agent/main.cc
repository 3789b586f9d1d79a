// agentd: the ktune agent. Serves khost over TCP (loopback by default; elsewhere only with a
// token, in sealed sessions), keeps pushed bundles in a content-addressed store and measures
// their variants under perf_event_open. The command line becomes a request (agent/options.h);
// this file executes it.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "agent/options.h"
#include "agent/server/agent_server.h"
#include "agent/server/log.h"
#include "agent/store/layout.h"
#include "common/fs.h"
#include "common/version.h"

namespace ktune::agent {
namespace {

// One line on stderr. (agentd writes through stdio only: see docs/TARGET.md on its size.)
void Error(const std::string& message) {
  std::fprintf(stderr, "agentd: %s\n", message.c_str());
}

// What the options' defaults come from (agent/options.h), read from this process.
AgentdEnvironment ReadEnvironment() {
  AgentdEnvironment env;
  if (const char* h = std::getenv("HOME")) env.home = h;
  if (const char* x = std::getenv("XDG_DATA_HOME")) env.xdg_data_home = x;
  env.root = ::geteuid() == 0;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0) {
    env.physical_memory_mib =
        (static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_bytes)) >> 20;
  }
  return env;
}

// Detaching takes two steps so that a daemon still reports its address, or why it failed, on
// the terminal. BeginDaemon forks before any thread exists: the parent copies what the child
// writes to stdout until the child calls FinishDaemon, then exits 0 if anything came (the
// "listening on" line), else 1. Only the child returns.
void BeginDaemon() {
  int relay[2];
  if (::pipe(relay) != 0) return;  // stay in the foreground
  const pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid > 0) {
    ::close(relay[1]);
    char buf[512];
    ssize_t n, total = 0;
    while ((n = ::read(relay[0], buf, sizeof buf)) > 0) {
      total += n;
      if (::write(1, buf, static_cast<size_t>(n)) < 0) break;
    }
    ::_exit(total > 0 ? 0 : 1);
  }
  ::close(relay[0]);
  ::setsid();
  ::dup2(relay[1], 1);
  ::close(relay[1]);
}

// The child's second step: stdin from /dev/null, stdout and stderr to the log file.
bool FinishDaemon(const std::string& log_path) {
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (in < 0 || log < 0) return false;
  ::dup2(in, 0);
  ::dup2(log, 1);
  ::dup2(log, 2);
  return true;
}

// agentd --make-token FILE.
int MakeToken(const std::string& path) {
  const Status s = WriteFileAtomic(path, Token::NewText(), 0600);
  if (!s.ok()) {
    Error(s.message());
    return 1;
  }
  std::printf("agentd: wrote a new token to %s\n", path.c_str());
  return 0;
}

// The token of --token-file, if one was named; false (having said why) when it cannot be read.
bool LoadToken(AgentdRequest& req) {
  if (req.token_file.empty()) return true;
  auto loaded = Token::Load(req.token_file);
  if (!loaded.ok()) {
    Error(loaded.status().message());
    return false;
  }
  req.server.token = *loaded;
  return true;
}

// A daemon's log and pid files, once it announced its address; false (having said why) when one
// cannot be written.
bool Detach(const StoreLayout& store) {
  if (!FinishDaemon(store.log_file())) {
    Error("cannot open " + store.log_file() + ": " + std::strerror(errno));
    return false;
  }
  // A daemon says who it is, so that `khost agent deploy` can stop it for a new version.
  if (!WriteFileAtomic(store.pid_file(), std::to_string(::getpid()) + "\n").ok()) {
    Error("cannot write " + store.pid_file());
    return false;
  }
  return true;
}

// Serves until SIGINT or SIGTERM.
void RunUntilSignalled(boost::asio::io_context& io, AgentServer& server) {
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int sig) {
    Log(LogLevel::kInfo, "signal " + std::to_string(sig) + ": shutting down");
    server.Shutdown();
    io.stop();
  });
  io.run();
}

// The order of the steps is agentd's observable behaviour: the token file is loaded before the
// fork of --daemon (its error exits 2), FinishServeOptions' checks come after it (under --daemon
// the child exits 2 having said why, and the parent, which saw no address, exits 1).
int Serve(AgentdRequest& req) {
  SetLogLevel(req.log_level);
  if (!LoadToken(req)) return 2;
  ::signal(SIGPIPE, SIG_IGN);
  if (req.daemon) BeginDaemon();
  if (const Status s = FinishServeOptions(req.server, FindInPath); !s.ok()) {
    Error(s.message());
    return 2;
  }
  boost::asio::io_context io;
  auto server = AgentServer::Create(io, req.server);
  if (!server.ok()) {
    Error(server.status().message());
    return 1;
  }
  // khost reads this line to learn the port of an agent it started.
  std::printf("agentd %s listening on %s store %s\n", KTUNE_VERSION,
              (*server)->endpoint().ToString().c_str(), req.server.store_dir.c_str());
  std::fflush(stdout);
  const StoreLayout store(req.server.store_dir);
  if (req.daemon && !Detach(store)) return 1;
  RunUntilSignalled(io, **server);
  if (req.daemon) ::unlink(store.pid_file().c_str());
  return 0;
}

int Main(int argc, char** argv) {
  const AgentdEnvironment env = ReadEnvironment();
  Result<AgentdRequest> req = ParseAgentdArgs(std::vector<std::string>(argv + 1, argv + argc), env);
  if (!req.ok()) {
    Error(req.status().message());
    return 2;
  }
  switch (req->action) {
    case AgentdRequest::Action::kHelp:
      std::printf("%s\n", AgentdHelp(env).c_str());
      return 0;
    case AgentdRequest::Action::kVersion:
      std::printf("agentd " KTUNE_VERSION " (commit " KTUNE_COMMIT ")\n");
      return 0;
    case AgentdRequest::Action::kMakeToken:
      return MakeToken(req->token_out);
    case AgentdRequest::Action::kServe:
      break;
  }
  return Serve(*req);
}

}  // namespace
}  // namespace ktune::agent

// agentd's own terminate handler in place of libstdc++'s verbose one, which would link the C++
// demangler (about 32 KB of the static binary, docs/TARGET.md) only to name an uncaught
// exception's type: it says what() instead, then aborts as the verbose one does.
namespace __gnu_cxx {
void __verbose_terminate_handler() {
  static bool terminating = false;
  if (!terminating) {
    terminating = true;
    const char* what = "without an active exception";
    if (std::exception_ptr e = std::current_exception()) {
      what = "after an exception that is not a std::exception";
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        std::fprintf(stderr, "agentd: terminate called after throwing: %s\n", x.what());
        std::abort();
      } catch (...) {
      }
    }
    std::fprintf(stderr, "agentd: terminate called %s\n", what);
  }
  std::abort();
}
}  // namespace __gnu_cxx

int main(int argc, char** argv) {
  try {
    return ktune::agent::Main(argc, argv);
  } catch (const std::exception& e) {
    ktune::agent::Error(e.what());
    return 2;
  }
}
