// The evaluations of a search, one CSV line each: what khost tune --strategy journals as it
// measures (<kernel>/run/searches/<search_id>.csv) and what the search benchmark replays (a grid
// search's file, every configuration measured, is a landscape: test_data/landscapes/, made one by
// host/strategy/replay.h LandscapeOf). The format is khost's, read by the search and by report.
//
//   # ktune evaluations 1
//   # <free text: the kernel, the agent, how it was measured>
//   BLOCK_SIZE_M,BLOCK_SIZE_N,time_ns,status,run
//   4,16,1234567.5,ok,20261125T071502.123Z-3fa2c1
//   8,16,,build failed,
//
// One column per parameter, then the configuration's time in ns (its median; empty when it is
// infeasible), its status ("ok", or why it is infeasible: "build failed", "NOT OK", "exit:1",
// "signal:SIGSEGV", "timeout", "not measured") and the run that measured it. Statuses are free
// text without commas or control characters (FormatEvaluation replaces them).
//
// Pure. Edge cases: a last line without its '\n' (a writer killed mid-line) is dropped and
// counted; a line may end in "\r\n"; any other malformed line (a control character in it, too)
// is an error naming it; an "ok" line needs a positive finite time and any other status none. A
// search measures each configuration once, so a configuration's second line (a file edited or
// written by something else) is dropped and counted, never taken over the first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct Evaluation {
  std::vector<int64_t> config;    // the parameters' values, in the header's order
  std::optional<double> time_ns;  // nullopt: infeasible
  std::string status = "ok";
  std::string run;  // the run id; "" when nothing ran (a build failure)
};

struct Evaluations {
  std::vector<std::string> comments;  // the "# " lines after the first, without "# "
  std::vector<std::string> names;     // the parameters
  std::vector<Evaluation> rows;       // one per configuration
  size_t torn_lines = 0;
  size_t duplicate_lines = 0;       // configurations given again, dropped
  size_t first_duplicate_line = 0;  // the first of them, counting from 1; 0: none
};

// What a reader should know of a file's evaluations beyond its rows ("", or a sentence saying
// which lines were dropped and why).
std::string EvaluationsWarning(const Evaluations& evaluations);

// The first line, the comments (control characters, line breaks among them, become spaces) and
// the header line, each ending in '\n'.
std::string FormatEvaluationsHeader(const std::vector<std::string>& comments,
                                    const std::vector<std::string>& names);
std::string FormatEvaluation(const Evaluation& e);
Result<Evaluations> ParseEvaluations(std::string_view text);

// A configuration for people: "BLOCK_SIZE_M=4 BLOCK_SIZE_N=16", the parameters in order.
std::string ConfigText(const std::vector<std::string>& names, const std::vector<int64_t>& config);

}  // namespace ktune::host
