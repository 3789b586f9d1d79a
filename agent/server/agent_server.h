// agentd's server: a Boost.Asio acceptor and one Session per connection, all on one io_context
// thread, and one Measurer thread that runs measurements one at a time in arrival order. With a
// token, a session serves nothing before the host proved it holds it (a wrong proof is logged
// and answered after a delay, then the connection closes). Rows
// measured for a session are posted back to it while it is connected; a session that goes away
// does not stop its run, whose rows stay in the store's results file.
#pragma once

#include <boost/asio.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agent/measure/workload.h"
#include "agent/store/store.h"
#include "common/address.h"
#include "common/cpu.h"
#include "common/status.h"
#include "protocol/session_crypto.h"

namespace ktune::agent {

class Measurer;
struct RunState;

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

  // Stops accepting, cancels the running measurement and joins the measurement thread.
  void Shutdown();

 private:
  AgentServer(boost::asio::io_context& io, Store store, CpuId cpu);
  void Accept();

  boost::asio::io_context& io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;  // backs off after a failed accept
  const CpuId cpu_;                  // detected once, at start
  Store store_;
  std::optional<Token> token_;
  bool seal_ = false;
  // Runs measuring or queued, by id: a session resuming one joins it.
  std::map<std::string, std::shared_ptr<RunState>> runs_;
  // Bundles that may not be evicted, with how many runs and pushes hold each.
  std::map<std::string, int> pins_;
  uint64_t max_bundle_bytes_ = 0, store_quota_bytes_ = 0;
  std::unique_ptr<Measurer> measurer_;
};

}  // namespace ktune::agent
