// khost agent add|list|status|remove|deploy|tune-system: its request, the pure function that parses
// argv into it (unit-tested), its command line and its entry point for the command table
// (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/remote/agent_registry.h"
#include "host/remote/deploy.h"

namespace ktune::host {

struct AgentRequest {
  std::string action;  // one of AgentActions()
  std::string agent;   // status, tune-system: --agent, or the NAME given
  std::string token_file;
  RegisteredAgent entry;  // add: the new entry; remove, deploy: its name
  bool replace = false;   // add: over an entry of the same name
  DeployOptions deploy;
  bool reset = false;  // tune-system: write back what it changed
  std::string db;      // status: the tuning database holding the board's ceilings (--db)
};
const std::vector<std::string>& AgentActions();
Result<AgentRequest> ParseAgentArgs(const Args& args);
cxxopts::Options AgentCliOptions();
int AgentMain(const Args& args);

}  // namespace ktune::host
