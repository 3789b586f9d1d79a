#include "host/cli/completion.h"

#include <sstream>

#include "common/strings.h"

namespace ktune::host {
namespace {

// The command's options as they are typed ("--root", "-o"); with `valued_only`, only those that
// take a value.
std::vector<std::string> OptionWords(const CompletionCommand& command, bool valued_only) {
  std::vector<std::string> words;
  for (const CompletionOption& o : command.options) {
    if (valued_only && !o.takes_value) continue;
    words.push_back("--" + o.long_name);
    if (!o.short_name.empty()) words.push_back("-" + o.short_name);
  }
  return words;
}

// `text` inside a single-quoted word of _arguments or _describe: the characters their specs give
// a meaning (a backslash, the brackets around a help text, the colons between fields) escaped
// with a backslash, which zsh removes before showing the text; a newline as a space; and a quote
// closing the word, escaped, and opening it again.
std::string ZshQuoted(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '[' || c == ']' || c == ':') out += '\\';
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out;
}

// One _arguments spec: '*--ssh-option=[help]:ssh-option:_files', '-o+[help]:output:_files'.
std::string ZshOptionSpec(const CompletionOption& option, bool is_short) {
  std::string spec = option.repeatable ? "*" : "";
  spec += is_short ? "-" + option.short_name : "--" + option.long_name;
  if (option.takes_value) spec += is_short ? "+" : "=";
  spec += "[" + ZshQuoted(option.help) + "]";
  if (option.takes_value) spec += ":" + option.long_name + ":_files";
  return "'" + spec + "'";
}

}  // namespace

std::string BashCompletion(const std::vector<CompletionCommand>& commands) {
  std::vector<std::string> names;
  for (const CompletionCommand& c : commands) names.push_back(c.name);
  std::ostringstream out;
  out << R"(# khost's completion for bash, printed by `khost completion bash` from khost's command
# table and options. Load it with: source <(khost completion bash)
_khost() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W ')"
      << Join(names, " ") << R"(' -- "$cur"))
    return
  fi
  # The command's options, those of them that take a value, and its actions.
  local options valued actions
  case ${COMP_WORDS[1]} in
)";
  for (const CompletionCommand& c : commands) {
    out << "    " << c.name << ")\n"
        << "      options='" << Join(OptionWords(c, false), " ") << "'\n"
        << "      valued='" << Join(OptionWords(c, true), " ") << "'\n"
        << "      actions='" << Join(c.actions, " ") << "'\n"
        << "      ;;\n";
  }
  out << R"(    *) return ;;
  esac
  # An option's value: left to readline's file names (complete -o default).
  [[ " $valued " == *" $prev "* ]] && return
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  # The action is the first word that is neither an option nor an option's value (bash splits
  # --option=value into three words).
  local i
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]]; then
      return
    elif [[ ${COMP_WORDS[i+1]} == = ]]; then
      ((i += 2))
    elif [[ " $valued " == *" ${COMP_WORDS[i]} "* ]]; then
      ((i++))
    fi
  done
  COMPREPLY=($(compgen -W "$actions" -- "$cur"))
}
complete -o default -F _khost khost
)";
  return out.str();
}

std::string ZshCompletion(const std::vector<CompletionCommand>& commands) {
  std::ostringstream out;
  out << R"(#compdef khost
# khost's completion for zsh, printed by `khost completion zsh` from khost's command table and
# options. Install it as _khost in a directory of $fpath before compinit runs:
#   khost completion zsh > ~/.zfunc/_khost    with fpath=(~/.zfunc $fpath) in ~/.zshrc
# or load it in a shell where compinit has run: source <(khost completion zsh)

_khost() {
  local curcontext=$curcontext state line
  local -A opt_args
  local -a commands
  _arguments -C '1: :->command' '*:: :->argument'
  case $state in
    (command)
      commands=(
)";
  for (const CompletionCommand& c : commands) {
    out << "        '" << c.name << ":" << ZshQuoted(c.help) << "'\n";
  }
  out << R"(      )
      _describe -t commands 'khost command' commands
      ;;
    (argument)
      curcontext=${curcontext%:*:*}:khost-$line[1]:
      case $line[1] in
)";
  for (const CompletionCommand& c : commands) {
    out << "        (" << c.name << ")\n          _arguments";
    for (const CompletionOption& o : c.options) {
      out << " \\\n            " << ZshOptionSpec(o, false);
      if (!o.short_name.empty()) out << " \\\n            " << ZshOptionSpec(o, true);
    }
    if (!c.actions.empty()) {
      out << " \\\n            '1:action:(" << Join(c.actions, " ") << ")'";
    }
    out << " \\\n            '*:argument:_files'\n          ;;\n";
  }
  out << R"(      esac
      ;;
  esac
}

if [[ $funcstack[1] == _khost ]]; then
  _khost "$@"
else
  compdef _khost khost
fi
)";
  return out.str();
}

}  // namespace ktune::host
