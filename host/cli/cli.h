// What every khost subcommand shares on its command line: cxxopts over an argument vector, with
// usage errors as InvalidArgument; --help; the --root/--agent options; and CommandMain, the one
// shape of every subcommand.
#pragma once

#include <cxxopts.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/cli/help.h"
#include "host/db/tuning_db.h"
#include "host/results/results_dir.h"

namespace ktune::host {

// Parses `args` (without the command name); the positional arguments are the options of
// kArgumentsGroup (help.h), in order. Unknown options and extra positionals are errors; so is a
// missing positional among the first `required` (default: all of them).
Result<cxxopts::ParseResult> ParseOptions(cxxopts::Options& options, const Args& args,
                                          std::optional<size_t> required = std::nullopt);

// Adds --root DIR, and --agent HOST:PORT with --token-file FILE; --wide (console tables in
// full: host/report/table.h FitTable).
void AddRootOption(cxxopts::Options& options);
void AddAgentOption(cxxopts::Options& options);
void AddWideOption(cxxopts::Options& options);
// Adds --db: the tuning database (host/db/tuning_db.h).
void AddDbOption(cxxopts::Options& options);
// The tuning database of --db `flag`, else KTUNE_DB, the config file's "db", or the default file
// (ChooseDb); nullopt when it is "none": nothing recorded.
Result<std::optional<DbChoice>> DbFor(const std::string& flag);
// The tuning database of DbFor(flag), opened (made with `create`) for a command that reads it;
// "none" is an error. `source` (when given): how it was chosen.
Result<std::unique_ptr<TuningDb>> OpenDbFor(const std::string& flag, bool create,
                                            std::string* source = nullptr);

bool WantsHelp(const Args& args);

// A numeric option's value, read and checked in one place so that every error names the option,
// the value and what it takes ("--cooldown '99999999999': a number of milliseconds from 0 to
// 3600000"). Such options are declared as text (cxxopts::value<std::string>) so that cxxopts'
// own "Argument 'x' failed to parse" never answers in its place. `what` says what the number is
// ("a whole number of builds", "a TCP port"). The option must have a default or have been given.
Result<int64_t> IntegerOption(const cxxopts::ParseResult& r, const std::string& name, int64_t min,
                              int64_t max, const std::string& what);
// A real number; `above_min`: the minimum itself is refused ("above 0 and at most 60").
Result<double> RealOption(const cxxopts::ParseResult& r, const std::string& name, double min,
                          double max, const std::string& what, bool above_min = false);
// A whole number from 0 to 2^64 - 1 (a seed).
Result<uint64_t> Uint64Option(const cxxopts::ParseResult& r, const std::string& name);

// A command with actions (khost agent add, ...): an error unless `action` is one of `actions`
// ("unknown action 'x' (add, list, ...)").
Status CheckAction(const std::string& action, const std::vector<std::string>& actions);

// A command with actions: an error naming the first of `options` given
// with another action than `action` ("--ssh goes with 'khost agent add'").
Status OptionsOnlyWith(const cxxopts::ParseResult& result, const std::string& command,
                       const std::string& given_action, const std::string& action,
                       const std::vector<std::string>& options);

// Prints "khost <command>: <message>" on stderr.
void PrintError(const std::string& command, const Status& status);

// Prints each of RunWarnings(run) as "khost <command>: <warning>" on stderr.
void PrintRunWarnings(const std::string& command, const LoadedRun& run);

// A subcommand: --help prints its arguments and options (help.h; exit 0); the arguments become a
// request with the pure `parse` (a usage error exits 2); `execute` does the work (a failure exits
// 1). Either error is one line on stderr.
template <typename Request>
int CommandMain(const std::string& name, cxxopts::Options (*cli)(),
                Result<Request> (*parse)(const Args&), Status (*execute)(const Request&),
                const Args& args) {
  if (WantsHelp(args)) {
    std::cout << RenderHelp(HelpOf(cli()));
    return 0;
  }
  Result<Request> request = parse(args);
  if (!request.ok()) {
    PrintError(name, request.status());
    return 2;
  }
  const Status status = execute(*request);
  if (status.ok()) return 0;
  PrintError(name, status);
  return 1;
}

}  // namespace ktune::host
