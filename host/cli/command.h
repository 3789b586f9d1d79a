// khost's subcommands, registered in one explicit table (command.cc), simpleperf-style. Each
// lives in its own file cmd_<name>.cc and follows one shape: parse the arguments into a request
// with a pure function (declared with the request in its cmd_<name>.h, unit-tested), then
// execute the request through its layer. A command includes only its own header.
// Exit status: 0 success, 1 the work failed, 2 the command line was wrong.
#pragma once

#include <cxxopts.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ktune::host {

using Args = std::vector<std::string>;

struct CommandInfo {
  const char* name;
  const char* summary;
  int (*main)(const Args& args);
  cxxopts::Options (*options)();  // its command line (--help, khost completion)
  // The words its first argument takes when that names an action (khost agent add, ...).
  std::vector<std::string> actions = {};
};

const std::vector<CommandInfo>& Commands();

// khost's man pages, as perf's and git's: khost(1) with the command table, and khost-<command>(1)
// for each command from its options (help.h); pairs of file name ("khost-run.1") and roff text.
std::vector<std::pair<std::string, std::string>> ManPages();

// Dispatches argv to its subcommand; exceptions stop here as one error line.
int KhostMain(int argc, char** argv);

}  // namespace ktune::host
