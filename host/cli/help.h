// A command's command line for people: its --help text and its man page (khost-<command>(1)),
// both from the command's own cxxopts options, so that neither lists an option the command lacks,
// and from one model, so that they say the same. Positional arguments are the options of the
// kArgumentsGroup group (cli.h): listed as arguments, never as --options. Each default is said
// once: cxxopts' default, unless the description already says what the default is, and never an
// empty one or a flag's "false".
#pragma once

#include <cxxopts.hpp>
#include <string>
#include <vector>

namespace ktune::host {

// The cxxopts group of a command's positional arguments, in the order they are taken. Each one's
// arg help is how it reads in the usage line ("<kernel>", "[NAME]", "PATH..."); ParseOptions
// (cli.h) takes the positionals from this group.
inline const std::string kArgumentsGroup = "arguments";

struct HelpEntry {
  std::string name;  // "<kernel>", "--reps ARG", "-o, --output ARG", "--multiplex"
  std::string text;  // the description, with "(default: 5)" where that adds something
};

struct CommandHelp {
  std::string command;      // "khost run"
  std::string description;  // the first paragraph of --help
  std::string usage;        // "khost run <kernel> [options]"
  std::vector<HelpEntry> arguments;
  std::vector<HelpEntry> options;
};

CommandHelp HelpOf(const cxxopts::Options& options);

// --help: the description, the usage line, then arguments and options, each description wrapped
// to `width` columns beside its name (on a line of its own below a long name).
std::string RenderHelp(const CommandHelp& help, size_t width = 100);

// The man page (roff, man(7) macros) of a command: NAME, SYNOPSIS, DESCRIPTION, ARGUMENTS,
// OPTIONS, SEE ALSO. `summary`: the NAME line's, as the command table has it; `version`: the
// footer's.
std::string RenderManPage(const CommandHelp& help, const std::string& summary,
                          const std::string& version);

}  // namespace ktune::host
