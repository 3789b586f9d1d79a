// khost's end of a run's stream: what agents send for a RunRequest (khost run) or a FetchRun
// (khost run --resume, khost report --fetch) goes into the run's local files as it arrives --
// each row at once (of a repetition the file holds, only the values it lacks), profiles beside
// them, the run's metadata (the agent's system check too) -- with the progress line, a note on each
// failing variant and the system check's warnings as the run starts. One
// RunSink takes one agent's stream, or those of all the shards of a sweep (host/measure/sweep.h) at
// once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/remote/agent_client.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "host/util/progress.h"

namespace ktune::host {

struct ReceiveSetup {
  std::string command;       // "khost run", in notes
  std::string results_path;  // <kernel>/run/results/<run_id>.csv, created or appended to
  RunMeta meta;  // written before anything is asked, again with the agent's plan and at the end
  // The request, with every variant of the run; a fetch learns it from the agent.
  std::optional<wire::RunRequest> request;
  bool show_progress = false;  // the redrawn progress line (a terminal)
  // Say the system check's warnings as the run starts (a search says them for its first batch).
  bool say_system_warnings = true;
  // How to go on after an error that cut the run short (the agent lost, a file not written): said
  // at the end of that error ("khost run k --resume --run ID fetches ..."); "" for nothing.
  std::string how_to_resume = "";
  // Called with each row the file took (whole, or the values it lacked), once it is written
  // there, under the sink's lock: the tuning database's recorder (host/measure/run_service.h).
  std::function<void(const RepetitionRow&)> on_row = {};
};

// What a run's file holds once its stream ended, as a reader would load it (host/results
// LoadRun) but without reading back what was just written.
struct ReceivedRun {
  LoadedRun run;                        // every row of the local file, the metadata, the metrics
  std::vector<ProfileRecord> profiles;  // every profile of its samples file
  size_t rows_new = 0;                  // written by this call
  size_t rows_planned = 0;              // the plan's rows
  bool complete = false;                // the agent measured every row of its plan
  bool sampled = false;                 // the run has a samples file
};

// What arrived of one stream: the rows each of its variants should have (known once the agent
// has said its plan; 0 before) and those that are in the run's file.
struct StreamTally {
  size_t rows_per_variant = 0;
  std::map<uint32_t, size_t> rows;  // by the stream's own variant index
};

class RunSink {
 public:
  // Opens setup.results_path (a torn last line is dropped and said) and writes the metadata.
  static Result<std::unique_ptr<RunSink>> Open(ReceiveSetup setup);

  // The handlers for one agent's stream of run `run_id`, whose variant i is the sink's variant
  // variants[i] (empty: i itself). Safe to use from one thread per stream.
  RunStream StreamOf(const std::string& run_id, std::vector<uint32_t> variants, StreamTally* tally);

  // The rows each variant should have, by the plan known so far.
  size_t RowsPerVariant();
  // Every row of the run's file so far.
  std::vector<RepetitionRow> Rows();
  // Rows of variants an earlier run measured (reused from the tuning database: the rows of the
  // run's variants under their own run's id), written into the run's file as they are; they
  // count towards the plan as the agents' rows do.
  Status AddReused(const std::vector<RepetitionRow>& rows);
  // Changes the metadata and writes it.
  Status UpdateMeta(const std::function<void(RunMeta&)>& change);
  // Prints a note above the progress line.
  void Note(const std::string& line);
  // The first error of the run's own files (results, samples, metadata) that a handler met: a
  // sweep stops at it, where an agent's error only moves that agent's shard.
  Status LocalFailure();

  // Ends the progress line and syncs the files. `status`: how the streams ended; on an error,
  // what arrived is kept and the error says how many rows are saved where. `agents_complete`:
  // the agents measured every row of their plans (the run is complete when the file also holds
  // every planned row).
  Result<ReceivedRun> Finish(Status status, bool agents_complete);

 private:
  RunSink(ReceiveSetup setup, ResultsWriter writer);
  size_t PerVariant() const;
  size_t Total() const;
  // What the progress line says is measuring once `step` rows are in: the round (interleaved) or
  // the variant, pass and repetition (sequential).
  std::string Describe(size_t step) const;
  // Keeps `s` as the local failure unless it is the agent's fault (a protocol error).
  Status Local(Status s);
  Status Accepted(const wire::RunAccepted& a, const std::string& run_id, StreamTally* tally);
  // Keeps the first system check in the metadata; as a run (or a sweep's shard) starts, says
  // each of its warnings not said yet.
  void NoteSystem(const SystemCheck& check, bool starting);
  Status Row(const wire::RepetitionResult& r, const std::string& run_id,
             const std::vector<uint32_t>& variants, StreamTally* tally);

  std::mutex mu_;
  ReceiveSetup setup_;
  std::string meta_path_;
  ResultsWriter writer_;
  Progress progress_;
  size_t passes_ = 1;  // of the agents' plans (until one arrives, assume one)
  std::optional<SamplesWriter> samples_;
  std::set<std::string> unsampled_;
  std::set<uint32_t> noted_;
  std::set<std::string> noted_plan_;
  std::set<std::string> noted_system_;
  size_t rows_new_ = 0;
  size_t rows_completed_ = 0;    // the file held them in part
  size_t rows_conflicting_ = 0;  // the file holds another measurement of them
  Status local_failure_;
};

// One agent's stream, all of it into one sink: sends `ask` and receives the run into
// setup.results_path; the agent's variant i is the run's variants[i] (empty: i itself).
Result<ReceivedRun> ReceiveRun(AgentConnection& conn, const wire::Envelope& ask, ReceiveSetup setup,
                               std::vector<uint32_t> variants = {});

}  // namespace ktune::host
