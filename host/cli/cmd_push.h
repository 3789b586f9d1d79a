// khost push <kernel>: its request, the pure function that parses argv into it (unit-tested), its
// command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <string>

#include "common/status.h"
#include "host/cli/command.h"

namespace ktune::host {

struct PushRequest {
  std::string kernel;
  std::string root = ".";
  std::string agent;
  std::string token_file;
};
Result<PushRequest> ParsePushArgs(const Args& args);
cxxopts::Options PushCliOptions();
int PushMain(const Args& args);

}  // namespace ktune::host
