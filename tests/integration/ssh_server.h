// An sshd of the test's own (Debian's openssh-server) on a loopback port, for khost's ssh agents:
// a fresh host key, a fresh client key authorized for the user running the tests, and the
// options khost's ssh needs to use them (the test's known_hosts, that key, no other). Nothing
// listens outside loopback and nothing of the user's own ssh setup is read or changed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/integration/harness.h"

namespace ktune::test {

// Whether something accepts connections on 127.0.0.1:`port` now.
bool AcceptsOnLoopback(uint16_t port);

class SshServer {
 public:
  // Starts sshd with its files in `dir` (with AllowTcpForwarding as `allow_forwarding` says).
  // When this machine cannot (no sshd, no ssh-keygen), available() is false and why() says what
  // is missing.
  explicit SshServer(const std::string& dir, bool allow_forwarding = true);
  // Stops sshd and every session it still serves, which ends the masters khost left behind.
  ~SshServer();

  bool available() const { return sshd_ != nullptr; }
  const std::string& why() const { return why_; }
  uint16_t port() const { return port_; }
  std::string target() const;                    // "user@127.0.0.1:port"
  std::vector<std::string> ssh_options() const;  // KEY=VALUE, for --ssh-option
  // Connections sshd serves now (its session processes): one per master khost keeps.
  size_t Connections() const;
  // khost agent add NAME --ssh target() --agent-port PORT --ssh-option ... (each option).
  std::vector<std::string> AddArgs(const std::string& name, uint16_t agent_port) const;
  // The same options with another client key, which the server does not accept.
  std::vector<std::string> AddArgsWithWrongKey(const std::string& name, uint16_t agent_port) const;

 private:
  std::string dir_, user_, why_;
  uint16_t port_ = 0;
  std::unique_ptr<Program> sshd_;
};

}  // namespace ktune::test
