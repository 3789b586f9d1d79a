// khost corpus extract|sample|export: its request, the pure function that parses argv into it
// (unit-tested), its command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/corpus/corpus.h"

namespace ktune::host {

struct CorpusRequest {
  std::string action;              // one of CorpusActions()
  std::vector<std::string> paths;  // extract: the debug directories; else the one corpus
  std::string out;  // extract: the corpus; sample: its projections; export: the JSON file
  CorpusSampleOptions sample;
  std::string format = "text-completion";  // export
  bool dedup = false;                      // export: identical kernels once
  size_t min_lines = 0, max_lines = 0;     // export: length limits, 0 for none
};
const std::vector<std::string>& CorpusActions();
Result<CorpusRequest> ParseCorpusArgs(const Args& args);
cxxopts::Options CorpusCliOptions();
int CorpusMain(const Args& args);

}  // namespace ktune::host
