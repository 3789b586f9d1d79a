// What every khost subcommand shares on its command line: cxxopts over an argument vector, with
// usage errors as InvalidArgument; --help; the --root/--agent options; and the one-line error
// report with its exit status.
#pragma once

#include <cxxopts.hpp>
#include <string>

#include "common/status.h"
#include "host/command.h"

namespace ktune {

// Parses `args` (without the command name). Unknown options and extra positionals are errors.
Result<cxxopts::ParseResult> ParseOptions(cxxopts::Options& options, const Args& args,
                                          const std::vector<std::string>& positionals);

// Adds --root DIR and --agent HOST:PORT.
void AddRootOption(cxxopts::Options& options);
void AddAgentOption(cxxopts::Options& options);

bool WantsHelp(const Args& args);

// Print "khost <command>: <message>" on stderr and return the exit status: 2 for a wrong command
// line, 1 for work that failed.
int UsageError(const std::string& command, const Status& status);
int Failure(const std::string& command, const Status& status);

}  // namespace ktune
