// khost run <kernel>: its request, the pure function that parses argv into it (unit-tested), its
// command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/measure/run_request.h"

namespace ktune::host {

struct RunOptions : MeasureOptions {
  std::string kernel;
  std::string root = ".";
  std::string agent;
  std::vector<std::string> agents;  // --agents: a sweep spread over them (host/measure/sweep.h)
  bool allow_mixed = false;         // agents of several CPU fingerprints in one sweep
  std::string token_file;
  bool resume = false;  // fetch an earlier run and measure what it lacks, as it was asked
  std::string run_id;   // with resume: which run (empty: the newest)
  // --shape sets and --shapes: only the variants at these shapes (host/results/shape_sets.h sets,
  // each matching the variants whose shape has its every NAME=VALUE).
  std::vector<std::string> shape;
  std::string shapes_file;
  std::string db;  // --db (host/cli/cli.h DbFor)
};
// Pure: checks syntax; event names are resolved against the agent's catalog when it answers.
Result<RunOptions> ParseRunArgs(const Args& args);
cxxopts::Options RunCliOptions();
int RunMain(const Args& args);

}  // namespace ktune::host
