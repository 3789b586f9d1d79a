// khost db [show] | khost db import ROOT: its request, the pure function that parses argv into
// it (unit-tested), its command line and its entry point for the command table
// (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"

namespace ktune::host {

struct DbRequest {
  std::string action = "show";  // one of DbActions()
  std::string root = "";        // import: the directory holding <kernel>/run/
  std::string db = "";          // --db
  bool json = false;            // show: --format json
};
const std::vector<std::string>& DbActions();
Result<DbRequest> ParseDbArgs(const Args& args);
cxxopts::Options DbCliOptions();
int DbMain(const Args& args);

}  // namespace ktune::host
