// Boards reached with the system's OpenSSH (khost agent add --ssh): commands run on the board
// and port forwards to agentd on its loopback, all over one ControlMaster connection per board
// that later khost commands reuse (ControlPath in SshControlDir() of host/remote/agent_locator.h,
// ControlPersist kSshPersistSeconds). No password prompts (BatchMode): keys or an ssh-agent, as for
// scp in scripts. What ssh says on failure (refused, unknown host key, publickey denied) is the
// error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/address.h"
#include "common/status.h"
#include "host/remote/agent_registry.h"

namespace ktune::host {

// How long an idle master connection outlives the last khost command that used it.
constexpr int kSshPersistSeconds = 60;

struct SshSpec {
  SshTarget target;
  std::vector<std::string> options;  // the user's "KEY=VALUE" options; they win over ktune's
  std::string control_dir;
};

// Pure: ssh's argv with the shared options, then `extra` (e.g. {"-O", "check"}), then the
// destination, then `command` when it is not empty.
std::vector<std::string> SshArgv(const SshSpec& spec, const std::vector<std::string>& extra,
                                 const std::string& command = "");

// Pure: whether a Linux /proc/net/tcp or tcp6 table (`table`, either or both) has a socket
// listening on `port`, on any address.
bool ListensOnPort(const std::string& table, uint16_t port);

// One board's master connection. Open starts it (or finds it running); it stays up for
// kSshPersistSeconds after the last use, so the next command skips the handshake.
class SshLink {
 public:
  static Result<std::unique_ptr<SshLink>> Open(const std::string& name, const SshSpec& spec);

  // Runs a shell command line on the board; its output (stdout and stderr) when it exits 0.
  // `stdin_path` is fed to it (a file to copy). Errors carry the output's last line.
  Result<std::string> Run(const std::string& command, const std::string& stdin_path = "",
                          double timeout_seconds = 300) const;

  const std::string& name() const { return name_; }
  const SshSpec& spec() const { return spec_; }

 private:
  SshLink(std::string name, SshSpec spec) : name_(std::move(name)), spec_(std::move(spec)) {}
  std::string name_;
  SshSpec spec_;
};

// A local unix socket forwarded to `remote_port` on the board's loopback, through the
// link's master; cancelled when destroyed (and, should khost be killed, gone with the master
// kSshPersistSeconds later).
class PortForward {
 public:
  static Result<std::unique_ptr<PortForward>> Open(const SshLink& link, uint16_t remote_port);
  ~PortForward();
  PortForward(const PortForward&) = delete;
  PortForward& operator=(const PortForward&) = delete;

  // The forward's local end: a unix socket in the link's control directory, which only this
  // user may enter (a loopback port would let every user of this machine reach the agent).
  const std::string& socket_path() const { return socket_path_; }

 private:
  PortForward(const SshLink& link, std::string spec, std::string socket_path)
      : link_(link), spec_(std::move(spec)), socket_path_(std::move(socket_path)) {}
  const SshLink& link_;
  std::string spec_;  // "SOCKET:127.0.0.1:REMOTE"
  std::string socket_path_;
};

}  // namespace ktune::host
