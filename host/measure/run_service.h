// The run service: the one way khost measures a kernel's variants and fetches or resumes a run,
// used by khost run (new and --resume), khost report --fetch and the search (khost tune
// --strategy). A new run goes to the agents as a sweep (host/measure/sweep.h): one agent is its
// degenerate case, one shard under the run's own id, on the same path. Rows go into the run's
// local files as they arrive (host/remote/run_receiver.h) and come back with the run's metadata,
// so no caller reads back what was just written.
//
// The steps in order: OpenAgents (sessions) -> PlanAgents (each agent's plan for the options;
// one CPU fingerprint, the same events) -> MeasureRun (push the bundle to each, then the sweep).
// FetchRun is one call: the run's file and metadata, its agent (or a sweep's agents), the rows.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/manifest.h"
#include "common/status.h"
#include "host/db/run_recorder.h"
#include "host/measure/run_request.h"
#include "host/measure/sweep.h"
#include "host/remote/run_receiver.h"
#include "host/results/kernel_dir.h"

namespace ktune::host {

// The sessions of the agents named ("" for --agent not given: KTUNE_AGENT, the configured default
// or the local agent), in order, with the token as OpenAgentSession takes it.
Result<std::vector<SweepAgent>> OpenAgents(const std::vector<std::string>& names,
                                           const std::string& token_file);

// Each agent's plan for `measure` over `dir`'s variants (PrepareAgent); the agents must be of one
// CPU fingerprint (unless `allow_mixed`) and make the same events of --events.
Result<std::vector<AgentPlan>> PlanAgents(const MeasureOptions& measure, const KernelDir& dir,
                                          const std::vector<SweepAgent>& agents, bool allow_mixed);

// Said after an error that cut a run short, given the run's id ("khost run k --resume --run ID
// fetches ..."); empty: nothing.
using HowToResume = std::function<std::string(const std::string& run_id)>;

struct NewRun {
  std::string command = "";  // "khost run", in notes
  std::string run_id = "";   // "": a new one (NewRunId)
  // As asked (--events as given); the events measured are the plans', the seed drawn when none.
  MeasureOptions measure = {};
  bool show_progress = false;
  bool say_system_warnings = true;
  HowToResume how_to_resume = {};
  // Records the run into the tuning database as its rows arrive (null: not recorded). With it, a
  // variant whose measurement the database holds (its reuse key, ok, measured at most
  // measure.reuse_age_s ago, with the repetitions asked) is not measured again: its rows are
  // copied into the run under the run id that measured them (RunMeta::reused). Not with --reps
  // auto (a race needs its rivals measured together) nor --record (a reused variant has no
  // samples).
  RunRecorder* recorder = nullptr;
};

// Measures every variant of `dir` on `agents` (planned by PlanAgents), after pushing `manifest`
// (what each agent lacks) to each: into <dir.run_dir>/results/<run_id>.csv and its metadata,
// which come back with the rows. One agent: its errors are the run's, and a failed push leaves no
// run behind. Several: the variants are cut into shards (PlanShards), an agent whose push fails
// is left out (said on stderr), and one that drops out has its shards moved to the others.
Result<ReceivedRun> MeasureRun(std::vector<SweepAgent>& agents, const std::vector<AgentPlan>& plans,
                               const KernelDir& dir, const Manifest& manifest, const NewRun& run);

// A kernel's variants to measure, as khost run asks: the kernel directory, the shapes to keep,
// the agents, the run.
struct KernelRun {
  std::string root = ".", kernel = "";
  // --shape sets and a --shapes file (host/results/shape_sets.h): only the variants at these.
  std::vector<std::string> shape = {};
  std::string shapes_file = "";
  std::vector<std::string> agents = {""};  // names; "" the default agent
  std::string token_file = "";
  bool allow_mixed = false;  // agents of several CPU fingerprints
  NewRun run = {};
};

struct MeasuredKernel {
  KernelDir dir;  // as measured: the variants kept
  ReceivedRun got;
};

// The one entry for a kernel's variants: LoadKernelDir, the variants at the shapes asked,
// BuildManifest, OpenAgents, PlanAgents, then MeasureRun.
Result<MeasuredKernel> MeasureKernel(const KernelRun& ask);

struct FetchAsk {
  std::string command = "";  // "khost report", in notes
  std::string kernel = "";
  std::string run_dir = "";  // the kernel's run directory
  std::string run_id = "";   // "": the newest local run
  // Also measure what the run lacks, as it was asked (else only fetch what the agent's journal
  // holds, the run going on measuring).
  bool resume = false;
  bool refuse_complete = false;  // with resume: a complete run is an error (nothing to resume)
  bool require_meta = false;     // NotFound when the run has no metadata: it never was asked
  std::string agent = "", token_file = "";
  SweepAgent* open = nullptr;  // an open session to use instead of `agent`
  // A sweep's resume pushes the kernel's files (they must still be those the run was asked with).
  const KernelDir* dir = nullptr;
  bool show_progress = false;
  bool say_system_warnings = true;
  HowToResume how_to_resume = {};
  RunRecorder* recorder = nullptr;  // as NewRun's
};

// The run's rows that its agent holds (a sweep's: its agents, as its metadata names them) into
// its local file, and with resume what it lacks, measured; the rows and metadata come back. A run
// id given need not be here yet for a fetch; a resume and the newest run are local runs.
Result<ReceivedRun> FetchRun(const FetchAsk& ask);

}  // namespace ktune::host
