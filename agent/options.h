// agentd's command line, the way khost's subcommands read theirs: ParseAgentdArgs turns the
// arguments into a request with a pure function (unit-tested in tests/unit/agent/options_test.cc),
// and main.cc executes the request. Exit status: 0 success, 1 the work failed, 2 the command line
// was wrong (but under --daemon, see FinishServeOptions).
#pragma once

#include <cstdint>
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

// What agentd's defaults come from, read from the process by main.cc so that the parsing reads
// nothing itself.
struct AgentdEnvironment {
  std::string home;                  // $HOME, "" when unset
  std::string xdg_data_home;         // $XDG_DATA_HOME, "" when unset
  bool root = false;                 // agentd runs as root (geteuid() == 0)
  uint64_t physical_memory_mib = 0;  // the machine's memory, 0 when unknown
};

// agentd's arguments (without the program name) -> the request. --help, --version and
// --make-token stop the parsing where they are seen (as they always have: agentd --help with
// anything else prints the help). Every usage error is one InvalidArgument line: an unknown
// option or a value of the wrong type (cxxopts' text), an unexpected argument, an unknown log
// level, a bad listen address, listening off loopback without a token. Pure: the defaults come
// from `env` (the store under XDG_DATA_HOME, else HOME, else /var/lib; the address space limit
// from the physical memory; the process limit from whether agentd runs as root); --token-file is
// only named (main.cc loads it), --exec-wrapper's words are kept as given and
// --fake-counter-budget unchecked (FinishServeOptions).
Result<AgentdRequest> ParseAgentdArgs(const std::vector<std::string>& args,
                                      const AgentdEnvironment& env);

// Finds a program in PATH: its path, "" when there is none (common/fs.h's FindInPath).
using FindProgram = std::string (*)(const std::string& name);

// The checks of a serve request that agentd has always made after loading the token and, with
// --daemon, in the detached child (so that the terminal sees their error and the parent's exit
// status 1, not 2): a negative --fake-counter-budget, then --exec-wrapper's program, which
// `find` resolves to its path (an InvalidArgument when it is not in PATH).
Status FinishServeOptions(AgentOptions& server, FindProgram find);

// The text of agentd --help (its defaults from `env`).
std::string AgentdHelp(const AgentdEnvironment& env);

}  // namespace ktune::agent
