// "HOST:PORT" addresses of agents, as written on command lines, in KTUNE_AGENT and config files.
// IPv6 literals are bracketed: "[::1]:7178".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ktune {

constexpr uint16_t kDefaultAgentPort = 7178;

struct HostPort {
  std::string host;
  uint16_t port = 0;
  std::string ToString() const;
};

// Port 0 is accepted only when `allow_port_zero` (a listener asking for any free port).
Result<HostPort> ParseHostPort(std::string_view text, bool allow_port_zero = false);

}  // namespace ktune
