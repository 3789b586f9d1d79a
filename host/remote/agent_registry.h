// The agents a user registered by name (khost agent add), kept under "agents" in khost's config
// file beside "agent" (the default) and "token_file":
//   {"agents": {"k1": {"ssh": "me@k1.lab:22", "agent_port": 7178,
//                      "ssh_options": ["IdentityFile=~/.ssh/lab"]},
//               "x86": {"addr": "10.0.0.7:7178", "token_file": "/etc/ktune/x86.token"}}}
// An agent is reached either at an address (agentd listening there, with a token off loopback)
// or over ssh (agentd bound to the board's loopback, reached through a port forward; no token).
// Everything here is pure: reading and editing the parsed document, never the file.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/address.h"
#include "common/status.h"

namespace ktune::host {

// "[USER@]HOST[:PORT]" as ssh takes it; port 0 leaves it to ssh (its config, else 22).
struct SshTarget {
  std::string user;
  std::string host;
  uint16_t port = 0;
  std::string ToString() const;     // as parsed
  std::string Destination() const;  // "user@host" or "host", ssh's destination argument
};
Result<SshTarget> ParseSshTarget(std::string_view text);

struct RegisteredAgent {
  std::string name;
  std::optional<HostPort> addr;             // reached at this address...
  std::optional<SshTarget> ssh;             // ...or over ssh
  uint16_t agent_port = kDefaultAgentPort;  // ssh: agentd's port on the board's loopback
  std::vector<std::string> ssh_options;     // ssh: "-o" options, "KEY=VALUE"
  std::string token_file;                   // addr: the agent's token
  std::string Describe() const;             // "ssh me@k1.lab:22, agentd on port 7178"
};

// A name is 1-64 of [A-Za-z0-9._-], not starting with '-' or '.': never confused with an address.
Status ValidateAgentName(std::string_view name);

// The config file's text as JSON ("" is an empty document); every JSON error (syntax, a number
// beyond a double's range) becomes one error naming `path`.
Result<nlohmann::json> ParseConfigText(const std::string& text, const std::string& path);

// The registered agents, in name order; a malformed entry is an error naming it.
Result<std::vector<RegisteredAgent>> ReadRegistry(const nlohmann::json& config,
                                                  const std::string& path);
std::optional<RegisteredAgent> FindAgent(const std::vector<RegisteredAgent>& agents,
                                         std::string_view name);

// The document with `agent` added (an existing name is an error unless `replace`), or with the
// agent `name` removed (an unknown name is an error). Other keys are kept as they are.
Result<nlohmann::json> WithAgent(nlohmann::json config, const RegisteredAgent& agent, bool replace);
Result<nlohmann::json> WithoutAgent(nlohmann::json config, const std::string& name);

}  // namespace ktune::host
