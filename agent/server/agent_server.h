// agentd's server: a Boost.Asio acceptor and one Session per connection (agent/server/session.h),
// all on one io_context thread, and one Measurer thread (agent/server/measurer.h) that runs
// measurements one at a time in arrival order. The server owns what the sessions share
// (agent/server/server_context.h): the store, the registry of runs by id and the bundles they
// pin. With a token, a session serves nothing before the host proved it holds it (a wrong proof
// is logged and answered after a delay, then the connection closes). Rows measured for a session
// are posted back to it while it is connected; a session that goes away does not stop its run,
// whose rows stay in the store's results file.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/measure/workload.h"
#include "common/address.h"
#include "common/status.h"
#include "protocol/session_crypto.h"

namespace ktune::agent {

struct ServerContext;

struct AgentOptions {
  HostPort listen{"127.0.0.1", kDefaultAgentPort};
  std::string store_dir;
  // A pretend counter budget instead of probing the PMU, applied to every event: for tests on
  // machines without a PMU. 0: probe for real.
  int fake_counter_budget = 0;
  // Runs every variant as `exec_wrapper... ELF ARGS` (qemu-riscv64 -cpu rv64,v=true,vlen=256 for
  // an agent under qemu-user, which cannot exec foreign ELFs itself); argv[0] is a full path.
  std::vector<std::string> exec_wrapper;
  // FAKE, for tests of boards of several kinds on one machine: the CPU's identity is read from
  // this file, in /proc/cpuinfo's layout, instead of /proc/cpuinfo. "": the real one.
  std::string fake_cpuinfo;
  // FAKE, for tests: the system check reads, and tune-system writes, /sys and /proc's files under
  // this directory instead of /. "": the real ones.
  std::string fake_system_root;
  // With a token, every session must prove it holds it (protocol/session_crypto.h); `seal` then
  // also seals the session's frames (agentd seals off loopback).
  std::optional<Token> token;
  bool seal = false;
  // When agentd runs as root, kernels run as this user (agent/measure/sandbox.h).
  std::string run_as = "nobody";
  WorkloadLimits limits;                       // for every kernel
  uint64_t max_bundle_bytes = 2048ull << 20;   // a bigger bundle is refused
  uint64_t store_quota_bytes = 8192ull << 20;  // bundles beyond it evict the least recently used
};

class AgentServer {
 public:
  static Result<std::unique_ptr<AgentServer>> Create(boost::asio::io_context& io,
                                                     const AgentOptions& options);
  ~AgentServer();

  // The bound endpoint (the real port when 0 was asked for).
  HostPort endpoint() const;

  // Serves a connection that did not come through the listener: `fd`, a connected stream socket
  // the server takes (a test's end of a socketpair: tests/fuzz/agent_session.cc feeds its inputs
  // with no port). The session sees it as it would a TCP connection whose peer is unknown ("?").
  void Serve(int fd);

  // Whether a run is measuring or queued: its session may have gone, the run goes on until its
  // RunDone was handled on the io thread. tests/fuzz/agent_session.cc waits for none before the
  // next input, so that one input's runs never meet the next's.
  bool measuring() const;

  // Stops accepting, cancels the running measurement and joins the measurement thread.
  void Shutdown();

 private:
  AgentServer(boost::asio::io_context& io, std::unique_ptr<ServerContext> context);
  Status Listen(const HostPort& at);
  void Accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;  // backs off after a failed accept
  std::unique_ptr<ServerContext> context_;
};

}  // namespace ktune::agent
