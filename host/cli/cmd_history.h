// khost history <kernel>: its request, the pure function that parses argv into it (unit-tested),
// its command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/cli/command.h"
#include "host/report/table.h"

namespace ktune::host {

struct HistoryRequest {
  std::string kernel;
  std::string board = "";
  Params shape = {};   // --shape; empty: the newest
  Params config = {};  // --config 'BLOCK_SIZE_M=8 BLOCK_SIZE_N=64 ...'; empty: the newest best
  TableFormat format = TableFormat::kConsole;  // table, csv, json, markdown
  std::string html = "";                       // --html DIR: history.html with its plot
  bool wide = false;
  std::string db = "";
};
Result<HistoryRequest> ParseHistoryArgs(const Args& args);
cxxopts::Options HistoryCliOptions();
int HistoryMain(const Args& args);

}  // namespace ktune::host
