// khost completion bash|zsh: its request, the pure function that parses argv into it (unit-tested),
// its command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"

namespace ktune::host {

// The shell completion script, generated from the command table and each command's options
// (host/cli/completion.h), so it follows them as they change.
struct CompletionRequest {
  std::string shell;  // one of CompletionShells()
};
const std::vector<std::string>& CompletionShells();
Result<CompletionRequest> ParseCompletionArgs(const Args& args);
std::string CompletionScript(const CompletionRequest& req);
cxxopts::Options CompletionCliOptions();
int CompletionMain(const Args& args);

}  // namespace ktune::host
