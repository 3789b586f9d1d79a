// khost agent deploy NAME: puts the static agentd that matches a board's architecture on a board
// reached by ssh, starts it on the board's loopback (or installs the systemd unit shipped in
// scripts/ktune-agentd.service and starts that), and checks that it answers with khost's version.
// The binary goes to ~/.local/lib/ktune/agentd-<hash> on the board (--bin-dir), copied once per
// build: a redeploy of the same build copies nothing, and an agent of another version is stopped
// first.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/remote/agent_registry.h"

namespace ktune::host {

struct DeployOptions {
  std::string agentd;  // the binary to copy; "" = the one built for the board's architecture
  bool systemd = false;
  std::string store;    // agentd's --store on the board; "" = ~/.local/share/ktune/agent
  std::string bin_dir;  // where the binary goes on the board; "" = ~/.local/lib/ktune
};

// Pure: where khost looks for an agentd for `arch`, in order: beside khost as agentd-<arch>,
// scripts/build_agent.sh's output in the source tree, and khost's own agentd when the board has
// khost's architecture.
std::vector<std::string> AgentdCandidates(const std::string& arch, const std::string& khost_dir,
                                          const std::string& source_dir,
                                          const std::string& host_arch);

// Pure: the systemd unit for the board, from scripts/ktune-agentd.service's text.
std::string RenderUnit(const std::string& unit_template, const std::string& agentd_path,
                       uint16_t port, const std::string& store);

Status DeployAgent(const RegisteredAgent& agent, const DeployOptions& options);

}  // namespace ktune::host
