#include "host/cli/completion.h"

#include <doctest/doctest.h>

#include <cctype>

#include "common/strings.h"
#include "host/cli/cmd_completion.h"
#include "host/cli/help.h"

namespace ktune::host {
namespace {

// The part of `text` from `start` up to the next `end` after it ("" when `start` is missing).
std::string Section(const std::string& text, const std::string& start, const std::string& end) {
  const size_t from = text.find(start);
  if (from == std::string::npos) return "";
  return text.substr(from, text.find(end, from + start.size()) - from);
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// Whether `text` holds `word` ("--run") other than as a part of a longer name ("--run-id").
bool HasWord(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const size_t after = at + word.size();
    if ((at == 0 || !IsNameChar(text[at - 1])) &&
        (after == text.size() || !IsNameChar(text[after]))) {
      return true;
    }
  }
  return false;
}

// Each command's part of the scripts: its case branch.
std::string BashSection(const std::string& script, const std::string& command) {
  return Section(script, "\n    " + command + ")\n", ";;");
}
std::string ZshSection(const std::string& script, const std::string& command) {
  return Section(script, "\n        (" + command + ")\n", ";;");
}

TEST_CASE("completion scripts hold every command of the table and all its options") {
  const std::string bash = CompletionScript({"bash"});
  const std::string zsh = CompletionScript({"zsh"});
  const std::string bash_commands = Section(bash, "compgen -W '", "' ");
  const std::string zsh_commands = Section(zsh, "commands=(", ")\n");
  for (const CommandInfo& c : Commands()) {
    CAPTURE(c.name);
    CHECK(HasWord(bash_commands, c.name));
    CHECK(zsh_commands.find("'" + std::string(c.name) + ":") != std::string::npos);
    const std::string bash_section = BashSection(bash, c.name);
    const std::string zsh_section = ZshSection(zsh, c.name);
    REQUIRE_FALSE(bash_section.empty());
    REQUIRE_FALSE(zsh_section.empty());
    const cxxopts::Options options = c.options();
    for (const std::string& group : options.groups()) {
      for (const cxxopts::HelpOptionDetails& o : options.group_help(group).options) {
        for (const std::string& name : o.l) {
          CAPTURE(name);
          // A positional argument (help.h's group) is no --option.
          const bool option = group != kArgumentsGroup;
          CHECK(HasWord(bash_section, "--" + name) == option);
          CHECK(HasWord(zsh_section, "--" + name) == option);
        }
      }
    }
    CHECK(HasWord(bash_section, "actions='" + Join(c.actions, " ") + "'"));
    if (!c.actions.empty()) {
      CHECK(HasWord(zsh_section, "'1:action:(" + Join(c.actions, " ") + ")'"));
    }
  }
}

// One command as the model has it: a valued option with a short name, a repeatable one, a flag.
std::vector<CompletionCommand> ReportModel(const std::string& output_help) {
  return {{"report",
           "show a run: table, or csv",
           {{"output", "o", true, false, output_help},
            {"compare", "", true, true, "two runs"},
            {"fetch", "", false, false, "first fetch the rows"}},
           {"show", "diff"}}};
}

TEST_CASE("bash completion: options, those taking a value, actions") {
  const std::string bash = BashCompletion(ReportModel("a file"));
  CHECK(bash.find("compgen -W 'report' -- \"$cur\"") != std::string::npos);
  const std::string section = BashSection(bash, "report");
  CHECK(section.find("options='--output -o --compare --fetch'\n") != std::string::npos);
  CHECK(section.find("valued='--output -o --compare'\n") != std::string::npos);
  CHECK(section.find("actions='show diff'\n") != std::string::npos);
  CHECK(bash.ends_with("complete -o default -F _khost khost\n"));
}

TEST_CASE("zsh completion escapes help texts for _arguments and _describe") {
  const std::string zsh = ZshCompletion(ReportModel("write [x] here: the run's table\\n"));
  CHECK(zsh.starts_with("#compdef khost\n"));
  CHECK(zsh.find("'report:show a run\\: table, or csv'") != std::string::npos);
  const std::string section = ZshSection(zsh, "report");
  CHECK(section.find(R"('--output=[write \[x\] here\: the run'\''s table\\n]:output:_files')") !=
        std::string::npos);
  CHECK(section.find(R"('-o+[write \[x\] here\: the run'\''s table\\n]:output:_files')") !=
        std::string::npos);
  CHECK(section.find("'*--compare=[two runs]:compare:_files'") != std::string::npos);
  CHECK(section.find("'--fetch[first fetch the rows]'") != std::string::npos);
  CHECK(section.find("'1:action:(show diff)'") != std::string::npos);
}

}  // namespace
}  // namespace ktune::host
