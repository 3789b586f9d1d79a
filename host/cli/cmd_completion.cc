// khost completion bash|zsh: prints khost's shell completion script, generated
// (host/cli/completion.h) from the command table and each command's cxxopts options, so it
// never lists an option the command lacks or misses one it has. `cmake --install` installs both
// scripts (host/cli/docs_main.cc writes them); the README says how to load one by hand.
#include <algorithm>
#include <iostream>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_completion.h"
#include "host/cli/completion.h"

namespace ktune::host {

const std::vector<std::string>& CompletionShells() {
  static const std::vector<std::string> kShells = {"bash", "zsh"};
  return kShells;
}

cxxopts::Options CompletionCliOptions() {
  cxxopts::Options o(
      "khost completion",
      "Print khost's shell completion script. Shells: " + Join(CompletionShells(), ", ") +
          ". Load it with source <(khost completion bash), or for zsh write it "
          "to _khost in a directory of $fpath.");
  o.add_options(kArgumentsGroup)("shell", Join(CompletionShells(), " or "),
                                 cxxopts::value<std::string>(), Join(CompletionShells(), "|"));
  return o;
}

Result<CompletionRequest> ParseCompletionArgs(const Args& args) {
  cxxopts::Options o = CompletionCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, 0));
  const std::vector<std::string>& shells = CompletionShells();
  if (!r.count("shell")) {
    return InvalidArgument("which shell? khost completion " + Join(shells, "|"));
  }
  CompletionRequest req{r["shell"].as<std::string>()};
  if (std::ranges::find(shells, req.shell) == shells.end()) {
    return InvalidArgument("unknown shell '" + req.shell + "' (" + Join(shells, ", ") + ")");
  }
  return req;
}

namespace {

// A command's cxxopts options as the completion sees them: each long name (with the short one
// beside the first), whether it takes a value (a flag has an implicit one), and its help. The
// positional arguments (help.h's kArgumentsGroup) are no options.
std::vector<CompletionOption> OptionsOf(const cxxopts::Options& options) {
  std::vector<CompletionOption> out;
  for (const std::string& group : options.groups()) {
    if (group == kArgumentsGroup) continue;
    for (const cxxopts::HelpOptionDetails& o : options.group_help(group).options) {
      for (size_t i = 0; i < o.l.size(); ++i) {
        out.push_back({.long_name = o.l[i],
                       .short_name = i == 0 ? o.s : "",
                       .takes_value = !o.has_implicit,
                       .repeatable = o.is_container,
                       .help = o.desc});
      }
    }
  }
  return out;
}

std::vector<CompletionCommand> CompletionModel() {
  std::vector<CompletionCommand> model;
  for (const CommandInfo& c : Commands()) {
    model.push_back({c.name, c.summary, OptionsOf(c.options()), c.actions});
  }
  return model;
}

Status ExecuteCompletion(const CompletionRequest& req) {
  std::cout << CompletionScript(req);
  return Status::Ok();
}

}  // namespace

std::string CompletionScript(const CompletionRequest& req) {
  const std::vector<CompletionCommand> model = CompletionModel();
  return req.shell == "zsh" ? ZshCompletion(model) : BashCompletion(model);
}

int CompletionMain(const Args& args) {
  return CommandMain("completion", CompletionCliOptions, ParseCompletionArgs, ExecuteCompletion,
                     args);
}

}  // namespace ktune::host
