// Where khost finds its agent: --agent NAME|HOST:PORT, else the KTUNE_AGENT environment
// variable, else "agent" in the config file ($XDG_CONFIG_HOME/ktune/config.json, default
// ~/.config/ktune/config.json). A NAME is an agent registered there (host/remote/agent_registry.h);
// one reached over ssh gets a port forward (host/remote/ssh.h) for the command's length. With none
// of these, khost uses the local agentd (store in $XDG_CACHE_HOME/ktune/local-agent), shared by the
// commands running at once (host/remote/local_agent.h): the first starts it on a free loopback
// port, says so on stderr, and the last to finish stops it. The token for an
// agent that asks for one comes the same way:
// --token-file, KTUNE_TOKEN_FILE, the registered agent's "token_file", "token_file" in the
// config file.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/address.h"
#include "common/status.h"
#include "host/remote/agent_client.h"
#include "host/remote/agent_registry.h"
#include "host/remote/local_agent.h"
#include "host/remote/ssh.h"

namespace ktune::host {

struct AgentChoice {
  std::optional<HostPort> address;  // empty: start a local agent, or reach `registered` by ssh
  std::optional<RegisteredAgent> registered;  // the agent was named
  std::string source;                         // "--agent", "KTUNE_AGENT", the config file's path
};

// Pure: picks the agent from the three sources in order of precedence; a name is looked up in
// the registry, and one that is not there is an error. `config_text` is the config file's
// content ("" when there is none).
Result<AgentChoice> ChooseAgent(const std::string& flag, const std::string& env,
                                const std::string& config_text, const std::string& config_path);

// Pure: the token file from the flag, the environment, the chosen agent's registry entry, then
// the config file; "" when none names one.
Result<std::string> ChooseTokenFile(const std::string& flag, const std::string& env,
                                    const std::string& agent_token_file,
                                    const std::string& config_text, const std::string& config_path);

std::string ConfigFilePath();
// The config file's text, "" when there is none; a file that exists but cannot be read is an
// error naming it, never taken for an empty one (that khost agent add would overwrite).
Result<std::string> ReadConfigFile(const std::string& path);
// Writes `config` (made by host/remote/agent_registry.h) as the config file, atomically.
Status WriteConfigFile(const std::string& path, const nlohmann::json& config);
// The store of the agentd khost starts when no agent is given: $XDG_CACHE_HOME/ktune/local-agent
// (default ~/.cache/ktune/local-agent). As root, agentd runs kernels as nobody, who must reach
// the store: when a directory on that path is closed to others (Debian's /root is 0700),
// /var/lib/ktune/local-agent instead.
std::string LocalAgentStoreDir();
// Whether others (neither its owner nor its group) may search every directory of `path` that
// exists; those still to be made count as searchable.
bool SearchableByOthers(const std::string& path);
// $XDG_CACHE_HOME/ktune/ssh (default ~/.cache/ktune/ssh): the boards' ControlMaster sockets;
// /tmp/ktune-ssh-<uid> when that is too long a path for a socket.
std::string SshControlDir();

// How to reach a board registered with --ssh.
SshSpec SshSpecFor(const RegisteredAgent& agent);

// What keeps a board reserved for a session (a LAVA job, host/lava/lava_boards.h); ending it
// gives the board back.
class Lease {
 public:
  virtual ~Lease() = default;
  // What the lab says of the board now, for a session that was lost ("its LAVA job 12 was
  // cancelled"); "" when it has nothing to say.
  virtual std::string Now() const { return ""; }
};

// A connection to the chosen agent, owning the local agent when one was started, or the ssh
// link and port forward it goes through, or the lab's reservation of its board (members are
// destroyed bottom up: the connection first).
struct AgentSession {
  std::string name;  // for messages: the registered name, else the address
  std::unique_ptr<Lease> lease;
  std::unique_ptr<LocalAgent> local;
  std::unique_ptr<SshLink> ssh;
  std::unique_ptr<PortForward> forward;
  std::unique_ptr<AgentConnection> conn;
};

// The agent --agent `agent_flag`, KTUNE_AGENT or the config file chooses (ChooseAgent).
Result<AgentChoice> ChooseAgentFor(const std::string& agent_flag);

// Resolves --agent/KTUNE_AGENT/config, starting a local agent when none is given, and connects,
// with the token of --token-file/KTUNE_TOKEN_FILE/config when one is named.
Result<AgentSession> OpenAgentSession(const std::string& agent_flag,
                                      const std::string& token_flag = "");

}  // namespace ktune::host
