// Shell completion for khost: the bash and zsh scripts `khost completion` prints, generated from a
// model of the command line (each command, its options, its actions) that cmd_completion.cc
// builds from the command table, so the scripts follow the options as they change. Pure: text in,
// text out. Command, option and action names are taken to be plain words (cxxopts allows only
// letters, digits, '-', '_' and '.' in option names); help texts may hold anything.
#pragma once

#include <string>
#include <vector>

namespace ktune::host {

struct CompletionOption {
  std::string long_name;   // without the leading "--"
  std::string short_name;  // one letter without the "-", or "" for none
  bool takes_value = false;
  bool repeatable = false;  // given more than once (a list)
  std::string help;
};

struct CompletionCommand {
  std::string name;
  std::string help;  // one line
  std::vector<CompletionOption> options;
  std::vector<std::string> actions;  // the words its first argument takes, or none
};

// A `_khost` function over COMP_WORDS, registered with `complete -o default -F _khost khost`:
// the command at position 1, then its options after a '-', its actions as the first argument;
// an option's value and other arguments are left to readline's file names.
std::string BashCompletion(const std::vector<CompletionCommand>& commands);

// A `#compdef khost` file: _describe over the commands with their help, then _arguments over the
// command's options (with their help) and actions; values and other arguments are file names.
// It works from a directory in $fpath and when sourced.
std::string ZshCompletion(const std::vector<CompletionCommand>& commands);

}  // namespace ktune::host
