// khost analyze <kernel>: its request, the pure function that parses argv into it (unit-tested),
// its command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/report/table.h"

namespace ktune::host {

struct AnalyzeRequest {
  std::string kernel;
  std::string root = ".";
  std::string run_id;  // empty: the newest run
  TableFormat format = TableFormat::kConsole;
  bool wide = false;           // tables in full (host/report/table.h FitTable)
  double threshold = 0.7;      // |r| that counts as correlated
  std::string heat_x, heat_y;  // --heatmap X,Y
  size_t counters = 3;         // scatter plots of the most correlated counters
  bool plots = true;
  std::string out_dir;  // empty: <root>/<kernel>/run/analysis/<run_id>
  // --search: the searches (khost tune --strategy) to show instead of a run: ids, or {"all"}.
  std::vector<std::string> searches;
  std::string db;  // --db: where khost roofline kept the board's ceilings (host/cli/cli.h DbFor)
};
Result<AnalyzeRequest> ParseAnalyzeArgs(const Args& args);
cxxopts::Options AnalyzeCliOptions();
int AnalyzeMain(const Args& args);

}  // namespace ktune::host
