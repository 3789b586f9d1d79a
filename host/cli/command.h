// khost's subcommands, registered in one explicit table (command.cc), simpleperf-style. Each
// lives in its own file cmd_<name>.cc and follows one shape: parse the arguments into a request
// with a pure function (declared here, unit-tested), then execute the request.
// Exit status: 0 success, 1 the work failed, 2 the command line was wrong.
#pragma once

#include <cxxopts.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/racing.h"
#include "common/status.h"
#include "host/corpus/corpus.h"
#include "host/measure/run_request.h"
#include "host/remote/agent_registry.h"
#include "host/remote/deploy.h"
#include "host/report/table.h"
#include "host/search/search.h"
#include "host/tune/tune_run.h"
#include "protocol/ktune.pb.h"

namespace ktune::host {

struct KernelDir;

using Args = std::vector<std::string>;

struct CommandInfo {
  const char* name;
  const char* summary;
  int (*main)(const Args& args);
  cxxopts::Options (*options)();  // its command line (--help, khost completion)
  // The words its first argument takes when that names an action (khost agent add, ...).
  std::vector<std::string> actions = {};
};

const std::vector<CommandInfo>& Commands();

// Dispatches argv to its subcommand; exceptions stop here as one error line.
int KhostMain(int argc, char** argv);

// --- khost tune <kernel> ---
// What to build (host/tune/tune_run.h), or with --apply-best what to apply.
struct TuneRequest : TuneOptions {
  // --apply-best: instead of building, write the winner of a run (run_id, or the newest) into
  // the kernel's spec and launcher constants (host/tune/apply_best.h).
  bool apply_best = false;
  std::string run_id;
  // --strategy (or --resume): search the space on an agent (host/search/search.h) instead.
  std::optional<SearchOptions> search;
};
Result<TuneRequest> ParseTuneArgs(const Args& args);
cxxopts::Options TuneCliOptions();
int TuneMain(const Args& args);

// --- khost push <kernel> ---
struct PushRequest {
  std::string kernel;
  std::string root = ".";
  std::string agent;
  std::string token_file;
};
Result<PushRequest> ParsePushArgs(const Args& args);
cxxopts::Options PushCliOptions();
int PushMain(const Args& args);

// --- khost run <kernel> ---
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
};
// Pure: checks syntax; event names are resolved against the agent's catalog when it answers.
Result<RunOptions> ParseRunArgs(const Args& args);
cxxopts::Options RunCliOptions();
int RunMain(const Args& args);

// --- khost report <kernel> ---
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
  bool wide = false;                 // tables in full (host/report/table.h FitTable)
};
Result<ReportRequest> ParseReportArgs(const Args& args);
cxxopts::Options ReportCliOptions();
int ReportMain(const Args& args);

// --- khost analyze <kernel> ---
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
};
Result<AnalyzeRequest> ParseAnalyzeArgs(const Args& args);
cxxopts::Options AnalyzeCliOptions();
int AnalyzeMain(const Args& args);

// --- khost events list|groups ---
struct EventsRequest {
  std::string action;     // one of EventsActions()
  std::string cpu_model;  // a table to show; "" asks the agent
  std::string agent;
  std::string token_file;
};
const std::vector<std::string>& EventsActions();
Result<EventsRequest> ParseEventsArgs(const Args& args);
cxxopts::Options EventsCliOptions();
int EventsMain(const Args& args);

// --- khost agent add|list|status|remove|deploy|tune-system ---
struct AgentRequest {
  std::string action;  // one of AgentActions()
  std::string agent;   // status, tune-system: --agent, or the NAME given
  std::string token_file;
  RegisteredAgent entry;  // add: the new entry; remove, deploy: its name
  bool replace = false;   // add: over an entry of the same name
  DeployOptions deploy;
  bool reset = false;  // tune-system: write back what it changed
};
const std::vector<std::string>& AgentActions();
Result<AgentRequest> ParseAgentArgs(const Args& args);
cxxopts::Options AgentCliOptions();
int AgentMain(const Args& args);

// --- khost corpus extract|sample|export ---
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

// --- khost completion bash|zsh ---
// The shell completion script, generated from the command table and each command's options
// (host/cli/completion.h), so it follows them as they change.
struct CompletionRequest {
  std::string shell;  // one of CompletionShells()
};
const std::vector<std::string>& CompletionShells();
Result<CompletionRequest> ParseCompletionArgs(const Args& args);
std::string CompletionScript(const CompletionRequest& req);
cxxopts::Options CompletionCliOptions();
int CompletionMain(const Args& args);

}  // namespace ktune::host
