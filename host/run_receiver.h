// khost's end of a run's stream: what the agent sends for a RunRequest (khost run) or a FetchRun
// (khost run --resume, khost report --fetch) goes into the run's local files as it arrives --
// each row at once (a repetition the file holds already is not written twice), profiles beside
// them, the run's metadata -- with the progress line and a note on each failing variant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/agent_client.h"
#include "host/results_dir.h"

namespace ktune {

struct ReceiveSetup {
  std::string command;       // "khost run", in notes
  std::string results_path;  // <kernel>/run/results/<run_id>.csv, created or appended to
  RunMeta meta;  // written before anything is asked, again with the agent's plan and at the end
  // The request sent; a fetch learns it from the agent.
  std::optional<wire::RunRequest> request;
  bool show_progress = false;  // the redrawn progress line (a terminal)
};

struct ReceivedRun {
  std::vector<RepetitionRow> rows;  // every row of the local file
  size_t rows_new = 0;              // written by this call
  size_t rows_planned = 0;          // the plan's rows
  bool complete = false;            // the agent measured every row of its plan
  bool sampled = false;             // the run has a samples file
};

// Sends `ask` and receives the run into setup.results_path. On an error, what arrived is kept
// and the error says how many rows are saved where.
Result<ReceivedRun> ReceiveRun(AgentConnection& conn, const wire::Envelope& ask,
                               ReceiveSetup setup);

}  // namespace ktune
