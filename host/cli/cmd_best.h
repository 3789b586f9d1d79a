// khost best <kernel>: its request, the pure function that parses argv into it (unit-tested), its
// command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/cli/command.h"

namespace ktune::host {

struct BestRequest {
  std::string kernel;
  std::string board = "";  // an agent's name or a CPU fingerprint
  Params shape = {};       // --shape 'M=64 N=64 K=64'; empty: the newest run's
  size_t top = 1;
  bool json = false;
  std::string db = "";
};
Result<BestRequest> ParseBestArgs(const Args& args);
cxxopts::Options BestCliOptions();
int BestMain(const Args& args);

}  // namespace ktune::host
