// The agents a user registered by name (khost agent add), kept under "agents" in khost's config
// file beside "agent" (the default) and "token_file":
//   {"agents": {"k1": {"ssh": "me@k1.lab:22", "agent_port": 7178,
//                      "ssh_options": ["IdentityFile=~/.ssh/lab"]},
//               "x86": {"addr": "10.0.0.7:7178", "token_file": "/etc/ktune/x86.token"},
//               "lab": {"lava": "https://lava.example.org", "device_type": "k1",
//                       "token_file": "/home/me/.config/ktune/lab.token", "boards": 4,
//                       "job_template": "/home/me/k1-job.yaml", "job_minutes": 60}}}
// An agent is reached either at an address (agentd listening there, with a token off loopback)
// or over ssh (agentd bound to the board's loopback, reached through a port forward; no token);
// or it is a LAVA lab's device type (host/lava/lava_boards.h): each command reserves `boards`
// of them by submitting the job template, and reaches the agentd each job starts.
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

// A LAVA lab's boards of one device type.
struct LavaSource {
  std::string url;           // the server, as its web pages are reached
  std::string device_type;   // the lab's name for the board
  size_t boards = 1;         // reserved by each command
  std::string job_template;  // absolute path of the job definition khost fills and submits
  int64_t job_minutes = 60;  // the job's timeout: how long a board stays reserved at most
};

struct RegisteredAgent {
  std::string name;
  std::optional<HostPort> addr;             // reached at this address...
  std::optional<SshTarget> ssh;             // ...or over ssh...
  std::optional<LavaSource> lava;           // ...or reserved from a LAVA lab
  uint16_t agent_port = kDefaultAgentPort;  // ssh: agentd's port on the board's loopback
  std::vector<std::string> ssh_options;     // ssh: "-o" options, "KEY=VALUE"
  std::string token_file;                   // addr: the agent's token; lava: the API token
  std::string Describe() const;             // "ssh me@k1.lab:22, agentd on port 7178"
};

// A name is 1-64 of [A-Za-z0-9._-], not starting with '-' or '.': never confused with an address.
// A LAVA device type, 1-100 of the same (it goes into the API's query strings as it is).
Status ValidateAgentName(std::string_view name);
Status ValidateLavaDeviceType(std::string_view name);
constexpr int64_t kMaxLavaBoards = 64;
constexpr int64_t kMaxLavaJobMinutes = 7 * 24 * 60;

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
