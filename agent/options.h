// agentd's command line, the way khost's subcommands read theirs: ParseAgentdArgs turns the
// arguments into a request with a pure function (unit-tested in tests/unit/agent/options_test.cc),
// and main.cc executes the request. Exit status: 0 success, 1 the work failed, 2 the command line
// was wrong.
#pragma once

#include <string>
#include <vector>

#include "agent/server/agent_server.h"
#include "agent/server/log.h"
#include "common/status.h"

namespace ktune::agent {

struct AgentdRequest {
  enum class Action {
    kServe,      // listen and serve until SIGINT or SIGTERM
    kHelp,       // --help: print AgentdHelp()
    kVersion,    // --version
    kMakeToken,  // --make-token FILE: write a new random token to `token_out`
  };
  Action action = Action::kServe;
  std::string token_out;
  LogLevel log_level = LogLevel::kInfo;
  bool daemon = false;  // detach and log to <store>/agentd.log
  // --token-file: loaded when agentd serves (main.cc), which then sets server.token.
  std::string token_file;
  // What the server is given; `seal` is set for a listen address off loopback.
  AgentOptions server;
};

// agentd's arguments (without the program name) -> the request. --help, --version and
// --make-token stop the parsing where they are seen (as they always have: agentd --help with
// anything else prints the help). Every usage error is one InvalidArgument line: an unknown
// option or a value of the wrong type (cxxopts' text), an unexpected argument, an unknown log
// level, a bad listen address, listening off loopback without a token, a negative fake counter
// budget, an exec wrapper that is not in PATH. Reads no file; the defaults come from the
// environment (the store under XDG_DATA_HOME or HOME, the address space limit from the physical
// memory, the process limit from whether agentd runs as root).
Result<AgentdRequest> ParseAgentdArgs(const std::vector<std::string>& args);

// The text of agentd --help.
std::string AgentdHelp();

}  // namespace ktune::agent
