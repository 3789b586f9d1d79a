#include "agent/options.h"

#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <cxxopts.hpp>

#include "common/strings.h"

namespace ktune::agent {
namespace {

std::string DefaultStoreDir(const AgentdEnvironment& env) {
  if (!env.xdg_data_home.empty()) return env.xdg_data_home + "/ktune/agent";
  if (!env.home.empty()) return env.home + "/.local/share/ktune/agent";
  return "/var/lib/ktune/agent";
}

bool IsLoopback(const std::string& host) {
  boost::system::error_code ec;
  auto addr = boost::asio::ip::make_address(host, ec);
  return !ec && addr.is_loopback();
}

cxxopts::Options AgentdCliOptions(const AgentdEnvironment& env) {
  cxxopts::Options options("agentd", "ktune agent: runs kernel variants under perf counters");
  options.add_options()("listen", "address to listen on (HOST:PORT; port 0 picks a free one)",
                        cxxopts::value<std::string>()->default_value(
                            "127.0.0.1:" + std::to_string(kDefaultAgentPort)))(
      "store", "store directory",
      cxxopts::value<std::string>()->default_value(DefaultStoreDir(env)))(
      "log-level", "error, warn, info or debug",
      cxxopts::value<std::string>()->default_value("info"))(
      "daemon", "detach from the terminal and log to <store>/agentd.log")(
      "fake-counter-budget",
      "FAKE, for tests on machines without a PMU: pretend N events fit the counters, software "
      "events included, instead of probing",
      cxxopts::value<std::string>()->default_value("0"))(
      "fake-cpuinfo",
      "FAKE, for tests of several kinds of board on one machine: read the CPU's identity from "
      "this file (in /proc/cpuinfo's layout) instead of /proc/cpuinfo",
      cxxopts::value<std::string>()->default_value(""))(
      "fake-system-root",
      "FAKE, for tests: the system check reads, and tune-system writes, the files of /sys and "
      "/proc under this directory instead of /",
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
      cxxopts::value<std::string>()->default_value(std::to_string(env.physical_memory_mib)))(
      "limit-fsize-mb", "the largest file a kernel may write, MiB (RLIMIT_FSIZE; 0: none)",
      cxxopts::value<std::string>()->default_value("1024"))(
      "limit-nproc",
      "processes of the kernels' user (RLIMIT_NPROC; 0: none); default 1024 when kernels run as "
      "--run-as, else none (the agent's own user runs other programs too)",
      cxxopts::value<std::string>()->default_value("-1"))(
      "max-bundle-mb", "the largest bundle a host may push, MiB",
      cxxopts::value<std::string>()->default_value("2048"))(
      "store-quota-mb",
      "the bundles kept (blobs and trees; results do not count), MiB: beyond it the least "
      "recently used bundles no run holds are evicted",
      cxxopts::value<std::string>()->default_value("8192"))(
      "make-token", "write a new random token to this file (mode 600) and exit",
      cxxopts::value<std::string>()->default_value(""))("version", "print the version and exit")(
      "h,help", "print this help");
  return options;
}

// Where agentd listens, and whether it may: off loopback only with a token, and then sealed.
Status ParseListen(const cxxopts::ParseResult& args, AgentdRequest& req) {
  KT_ASSIGN_OR_RETURN(req.server.listen, ParseHostPort(args["listen"].as<std::string>(),
                                                       /*allow_port_zero=*/true));
  req.token_file = args["token-file"].as<std::string>();
  const bool loopback = IsLoopback(req.server.listen.host);
  if (!loopback && req.token_file.empty()) {
    return InvalidArgument("refusing to listen on " + req.server.listen.ToString() +
                           " without a token: off loopback, hosts must authenticate "
                           "(--token-file; agentd --make-token FILE writes one)");
  }
  req.server.seal = !loopback;
  return Status::Ok();
}

// A numeric option: a whole number from `min` to `max`, else one error naming the option, the
// value and the range.
Result<int64_t> Number(const cxxopts::ParseResult& args, const char* name, int64_t min,
                       int64_t max) {
  const std::string& text = args[name].as<std::string>();
  const Result<int64_t> v = ParseInt64(text);
  if (v.ok() && *v >= min && *v <= max) return *v;
  return InvalidArgument(std::string("--") + name + " '" + text + "': a whole number from " +
                         std::to_string(min) + " to " + std::to_string(max));
}

// A size in MiB, as bytes: up to 2^40 MiB, so that no size wraps around.
Result<uint64_t> MiB(const cxxopts::ParseResult& args, const char* name) {
  KT_ASSIGN_OR_RETURN(const int64_t mib, Number(args, name, 0, int64_t{1} << 40));
  return static_cast<uint64_t>(mib) << 20;
}

// The kernels' limits and the store's.
Status ParseLimits(const cxxopts::ParseResult& args, const AgentdEnvironment& env,
                   AgentOptions& server) {
  server.run_as = args["run-as"].as<std::string>();
  KT_ASSIGN_OR_RETURN(server.max_bundle_bytes, MiB(args, "max-bundle-mb"));
  KT_ASSIGN_OR_RETURN(server.store_quota_bytes, MiB(args, "store-quota-mb"));
  KT_ASSIGN_OR_RETURN(server.limits.address_space_bytes, MiB(args, "limit-as-mb"));
  KT_ASSIGN_OR_RETURN(server.limits.file_size_bytes, MiB(args, "limit-fsize-mb"));
  KT_ASSIGN_OR_RETURN(const int64_t nproc, Number(args, "limit-nproc", -1, int64_t{1} << 31));
  server.limits.processes = nproc >= 0 ? static_cast<uint64_t>(nproc) : env.root ? 1024 : 0;
  return Status::Ok();
}

// What serving needs. agentd has always reported its usage errors in this order: an unexpected
// argument, the log level, the address, [the token file, loaded by main.cc], listening off
// loopback without a token; then, after the fork of --daemon, the fake counter budget and the
// exec wrapper (FinishServeOptions).
Status ParseServe(const cxxopts::ParseResult& args, const AgentdEnvironment& env,
                  AgentdRequest& req) {
  if (!args.unmatched().empty()) {
    return InvalidArgument("unexpected argument '" + args.unmatched().front() + "'");
  }
  if (!ParseLogLevel(args["log-level"].as<std::string>(), &req.log_level)) {
    return InvalidArgument("unknown log level '" + args["log-level"].as<std::string>() + "'");
  }
  // The refusal is decided here on whether --token-file is given, before main.cc loads the
  // file: the same outcome as loading it first, since a named token file that does not load
  // fails with its own error, and one that loads allows any address.
  KT_RETURN_IF_ERROR(ParseListen(args, req));
  req.daemon = args.count("daemon") > 0;
  req.server.store_dir = args["store"].as<std::string>();
  // Checked after the fork of --daemon (FinishServeOptions): here only a number.
  KT_ASSIGN_OR_RETURN(req.server.fake_counter_budget,
                      Number(args, "fake-counter-budget", INT32_MIN, INT32_MAX));
  req.server.fake_cpuinfo = args["fake-cpuinfo"].as<std::string>();
  req.server.fake_system_root = args["fake-system-root"].as<std::string>();
  for (std::string_view w : Split(args["exec-wrapper"].as<std::string>(), ' ')) {
    if (!w.empty()) req.server.exec_wrapper.emplace_back(w);
  }
  return ParseLimits(args, env, req.server);
}

}  // namespace

Result<AgentdRequest> ParseAgentdArgs(const std::vector<std::string>& args,
                                      const AgentdEnvironment& env) {
  std::vector<std::string> storage = {"agentd"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  try {
    cxxopts::Options options = AgentdCliOptions(env);
    const cxxopts::ParseResult parsed = options.parse(static_cast<int>(argv.size()), argv.data());
    AgentdRequest req;
    if (parsed.count("help")) {
      req.action = AgentdRequest::Action::kHelp;
    } else if (parsed.count("version")) {
      req.action = AgentdRequest::Action::kVersion;
    } else if (!parsed["make-token"].as<std::string>().empty()) {
      req.action = AgentdRequest::Action::kMakeToken;
      req.token_out = parsed["make-token"].as<std::string>();
    } else {
      KT_RETURN_IF_ERROR(ParseServe(parsed, env, req));
    }
    return req;
  } catch (const cxxopts::exceptions::exception& e) {
    return InvalidArgument(e.what());
  }
}

Status FinishServeOptions(AgentOptions& server, FindProgram find) {
  if (server.fake_counter_budget < 0) {
    return InvalidArgument("--fake-counter-budget must be 0 or more");
  }
  if (server.exec_wrapper.empty()) return Status::Ok();
  const std::string path = find(server.exec_wrapper[0]);
  if (path.empty()) {
    return InvalidArgument("--exec-wrapper: " + server.exec_wrapper[0] +
                           " is not an executable in PATH");
  }
  server.exec_wrapper[0] = path;
  return Status::Ok();
}

std::string AgentdHelp(const AgentdEnvironment& env) {
  return AgentdCliOptions(env).help();
}

}  // namespace ktune::agent
