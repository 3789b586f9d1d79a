// khost report <kernel>: its request, the pure function that parses argv into it (unit-tested), its
// command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/report/table.h"

namespace ktune::host {

struct ReportRequest {
  std::string kernel;
  std::string root = ".";
  std::string run_id;  // empty: the newest run
  // --format: a table format (csv: the long results file itself), or perf-stats: the seed's
  // perf_stats.csv.
  TableFormat format = TableFormat::kConsole;
  bool perf_stats = false;
  std::string output;                // empty: stdout
  bool samples = false;              // the sampling profile instead of the measurements
  std::string annotate;              // a variant whose disassembly to show with its samples
  std::string event;                 // which sampled event to annotate (default: the first)
  size_t top = 10;                   // symbols per event in the samples table
  std::vector<std::string> compare;  // two runs (ids or results files) to compare, or none
  bool fetch = false;                // first fetch the run's rows from the agent
  std::string agent, token_file;     // for fetch
  std::string db;                    // --db, for fetch: the tuning database that records it
  bool wide = false;                 // tables in full (host/report/table.h FitTable)
};
Result<ReportRequest> ParseReportArgs(const Args& args);
cxxopts::Options ReportCliOptions();
int ReportMain(const Args& args);

}  // namespace ktune::host
