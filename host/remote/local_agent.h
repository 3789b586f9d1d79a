// The local agentd of khost commands given no agent: one per store, shared by every command that
// runs at once (their runs queue on it as on a named agent: never two measurements together). The
// first command starts it, the last one to finish stops it; one killed (Ctrl-C) leaves it
// measuring, as a named agent would, for `khost run --resume`, and the next command joins it and
// stops it when it is the last. Files beside the store coordinate them:
//   <store>.lock      locked (exclusively) while a command starts or stops the agent
//   <store>.users     every command using the agent holds a shared lock on it
//   <store>.address   "<pid> <host:port>" of the agent a command started (only that agent is
//                     joined or stopped: never one started by hand on the store)
//   <store>.log       the agent's messages (it may outlive the terminal of the command that
//                     started it)
// and agentd's own lock on its store (agent/store/layout.h agentd.lock, which names its pid) says
// whether that agent still runs.
#pragma once

#include <memory>
#include <string>

#include "common/address.h"
#include "common/fs.h"
#include "common/status.h"

namespace ktune::host {

class LocalAgent {
 public:
  // Joins the agent serving `store_dir`, or starts `agentd_path` on a free loopback port for it.
  static Result<std::unique_ptr<LocalAgent>> Open(const std::string& store_dir,
                                                  const std::string& agentd_path);
  // Leaves the agent; the last command to leave stops it (SIGTERM, waited for).
  ~LocalAgent();
  LocalAgent(const LocalAgent&) = delete;
  LocalAgent& operator=(const LocalAgent&) = delete;

  const HostPort& address() const { return address_; }
  bool started() const { return started_; }  // by this command; else another's was joined

 private:
  LocalAgent() = default;
  // Starts agentd in a session of its own (a Ctrl-C to one command does not stop it under the
  // others) and reads its address from the line it prints.
  Status Start(const std::string& agentd_path);
  std::string store_;
  ScopedFd users_;  // shared lock held while this command uses the agent
  HostPort address_;
  bool started_ = false;
};

// The pid of the agentd that holds `store_dir`'s lock, 0 when none does (pure of khost's files:
// asks the lock itself).
long AgentHoldingStore(const std::string& store_dir);

}  // namespace ktune::host
