// agentd: the ktune agent. Serves khost over TCP (loopback by default; elsewhere only with a
// token, in sealed sessions), keeps pushed bundles in a content-addressed store and measures
// their variants under perf_event_open.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxopts.hpp>
#include <optional>

#include "agent/server/agent_server.h"
#include "agent/server/log.h"
#include "common/fs.h"
#include "common/strings.h"
#include "common/version.h"

namespace {

// One line on stderr. (agentd writes through stdio only: see docs/TARGET.md on its size.)
void Error(const std::string& message) {
  std::fprintf(stderr, "agentd: %s\n", message.c_str());
}

std::string DefaultStoreDir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/ktune/agent";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.local/share/ktune/agent";
  return "/var/lib/ktune/agent";
}

bool IsLoopback(const std::string& host) {
  boost::system::error_code ec;
  auto addr = boost::asio::ip::make_address(host, ec);
  return !ec && addr.is_loopback();
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

uint64_t PhysicalMemoryMiB() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return 0;
  return (static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_bytes)) >> 20;
}

int Main(int argc, char** argv) {
  cxxopts::Options options("agentd", "ktune agent: runs kernel variants under perf counters");
  options.add_options()("listen", "address to listen on (HOST:PORT; port 0 picks a free one)",
                        cxxopts::value<std::string>()->default_value(
                            "127.0.0.1:" + std::to_string(ktune::kDefaultAgentPort)))(
      "store", "store directory", cxxopts::value<std::string>()->default_value(DefaultStoreDir()))(
      "log-level", "error, warn, info or debug",
      cxxopts::value<std::string>()->default_value("info"))(
      "daemon", "detach from the terminal and log to <store>/agentd.log")(
      "fake-counter-budget",
      "FAKE, for tests on machines without a PMU: pretend N events fit the counters, software "
      "events included, instead of probing",
      cxxopts::value<int>()->default_value("0"))(
      "fake-cpuinfo",
      "FAKE, for tests of several kinds of board on one machine: read the CPU's identity from "
      "this file (in /proc/cpuinfo's layout) instead of /proc/cpuinfo",
      cxxopts::value<std::string>()->default_value(""))(
      "exec-wrapper",
      "run every variant as 'CMD ARGS... ELF ELF-ARGS' (e.g. \"qemu-riscv64 -cpu "
      "rv64,v=true,vlen=256\" when agentd itself runs under qemu-user)",
      cxxopts::value<std::string>()->default_value(""))(
      "token-file",
      "a file holding the pre-shared token (64 hex digits, mode 600): hosts must prove they "
      "hold it; needed to serve anything but loopback, and then the sessions are sealed",
      cxxopts::value<std::string>()->default_value(""))(
      "run-as",
      "when agentd runs as root, kernels run as this user (a name or uid), in a working "
      "directory of their own",
      cxxopts::value<std::string>()->default_value("nobody"))(
      "limit-as-mb", "a kernel's address space limit, MiB (RLIMIT_AS; 0: none)",
      cxxopts::value<uint64_t>()->default_value(std::to_string(PhysicalMemoryMiB())))(
      "limit-fsize-mb", "the largest file a kernel may write, MiB (RLIMIT_FSIZE; 0: none)",
      cxxopts::value<uint64_t>()->default_value("1024"))(
      "limit-nproc",
      "processes of the kernels' user (RLIMIT_NPROC; 0: none); default 1024 when kernels run as "
      "--run-as, else none (the agent's own user runs other programs too)",
      cxxopts::value<int64_t>()->default_value("-1"))(
      "max-bundle-mb", "the largest bundle a host may push, MiB",
      cxxopts::value<uint64_t>()->default_value("2048"))(
      "store-quota-mb",
      "the bundles kept (blobs and trees; results do not count), MiB: beyond it the least "
      "recently used bundles no run holds are evicted",
      cxxopts::value<uint64_t>()->default_value("8192"))(
      "make-token", "write a new random token to this file (mode 600) and exit",
      cxxopts::value<std::string>()->default_value(""))("version", "print the version and exit")(
      "h,help", "print this help");
  auto args = options.parse(argc, argv);
  if (args.count("help")) {
    std::printf("%s\n", options.help().c_str());
    return 0;
  }
  if (args.count("version")) {
    std::printf("agentd " KTUNE_VERSION "\n");
    return 0;
  }
  if (const std::string path = args["make-token"].as<std::string>(); !path.empty()) {
    const ktune::Status s = ktune::WriteFileAtomic(path, ktune::Token::NewText(), 0600);
    if (!s.ok()) {
      Error(s.message());
      return 1;
    }
    std::printf("agentd: wrote a new token to %s\n", path.c_str());
    return 0;
  }
  if (!args.unmatched().empty()) {
    Error("unexpected argument '" + args.unmatched().front() + "'");
    return 2;
  }
  ktune::agent::LogLevel level;
  if (!ktune::agent::ParseLogLevel(args["log-level"].as<std::string>(), &level)) {
    Error("unknown log level '" + args["log-level"].as<std::string>() + "'");
    return 2;
  }
  ktune::agent::SetLogLevel(level);

  auto listen = ktune::ParseHostPort(args["listen"].as<std::string>(), /*allow_port_zero=*/true);
  if (!listen.ok()) {
    Error(listen.status().message());
    return 2;
  }
  std::optional<ktune::Token> token;
  if (const std::string path = args["token-file"].as<std::string>(); !path.empty()) {
    auto loaded = ktune::Token::Load(path);
    if (!loaded.ok()) {
      Error(loaded.status().message());
      return 2;
    }
    token = *loaded;
  }
  const bool loopback = IsLoopback(listen->host);
  if (!loopback && !token) {
    Error("refusing to listen on " + listen->ToString() +
          " without a token: off loopback, hosts must authenticate (--token-file; agentd "
          "--make-token FILE writes one)");
    return 2;
  }

  ::signal(SIGPIPE, SIG_IGN);
  const bool daemon = args.count("daemon") > 0;
  if (daemon) BeginDaemon();
  boost::asio::io_context io;
  ktune::agent::AgentOptions opts;
  opts.listen = *listen;
  opts.store_dir = args["store"].as<std::string>();
  opts.token = token;
  opts.seal = !loopback;
  opts.fake_counter_budget = args["fake-counter-budget"].as<int>();
  opts.fake_cpuinfo = args["fake-cpuinfo"].as<std::string>();
  if (opts.fake_counter_budget < 0) {
    Error("--fake-counter-budget must be 0 or more");
    return 2;
  }
  for (std::string_view w : ktune::Split(args["exec-wrapper"].as<std::string>(), ' ')) {
    if (!w.empty()) opts.exec_wrapper.emplace_back(w);
  }
  if (!opts.exec_wrapper.empty()) {
    const std::string path = ktune::FindInPath(opts.exec_wrapper[0]);
    if (path.empty()) {
      Error("--exec-wrapper: " + opts.exec_wrapper[0] + " is not an executable in PATH");
      return 2;
    }
    opts.exec_wrapper[0] = path;
  }
  opts.run_as = args["run-as"].as<std::string>();
  opts.max_bundle_bytes = args["max-bundle-mb"].as<uint64_t>() << 20;
  opts.store_quota_bytes = args["store-quota-mb"].as<uint64_t>() << 20;
  opts.limits.address_space_bytes = args["limit-as-mb"].as<uint64_t>() << 20;
  opts.limits.file_size_bytes = args["limit-fsize-mb"].as<uint64_t>() << 20;
  const int64_t nproc = args["limit-nproc"].as<int64_t>();
  opts.limits.processes = nproc >= 0 ? static_cast<uint64_t>(nproc) : ::geteuid() == 0 ? 1024 : 0;
  auto server = ktune::agent::AgentServer::Create(io, opts);
  if (!server.ok()) {
    Error(server.status().message());
    return 1;
  }
  // khost reads this line to learn the port of an agent it started.
  std::printf("agentd %s listening on %s store %s\n", KTUNE_VERSION,
              (*server)->endpoint().ToString().c_str(), opts.store_dir.c_str());
  std::fflush(stdout);
  if (daemon && !FinishDaemon(opts.store_dir + "/agentd.log")) {
    Error("cannot open " + opts.store_dir + "/agentd.log: " + std::strerror(errno));
    return 1;
  }
  // A daemon says who it is, so that `khost agent deploy` can stop it for a new version.
  const std::string pid_path = opts.store_dir + "/agentd.pid";
  if (daemon && !ktune::WriteFileAtomic(pid_path, std::to_string(::getpid()) + "\n").ok()) {
    Error("cannot write " + pid_path);
    return 1;
  }

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int sig) {
    ktune::agent::Log(ktune::agent::LogLevel::kInfo,
                      "signal " + std::to_string(sig) + ": shutting down");
    (*server)->Shutdown();
    io.stop();
  });
  io.run();
  if (daemon) ::unlink(pid_path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    Error(e.what());
    return 2;
  }
}
