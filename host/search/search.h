// khost tune --strategy: the online search. A strategy (host/strategy/) proposes configurations of
// the kernel's feasible space in batches; khost builds them (cached, in parallel, as khost tune
// does), pushes what the agent lacks, measures the batch as one run (interleaved rounds, the run
// options of khost run), and tells the strategy each configuration's time, until the budget
// (evaluations, or seconds), or the strategy has nothing more to try.
//
// Every evaluation is journaled as it is known (host/search/search_files.h): --resume replays the
// strategy over the journal (strategies are deterministic for a seed) and measures only what it
// lacks; the batch being measured when the search was cut short has its run continued on the
// agent. With several shapes (--shapes), the space is the configurations every shape's
// constraints take, each evaluation measures a configuration at every shape, and the search looks
// for the best overall (AcrossShapesEvaluation); each shape's own winner is a search of its own
// (--shape). A configuration that fails to build, prints NOT OK, crashes or times out is an
// evaluation too, recorded with its reason and infeasible to the strategy; it never stops the
// search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/results.h"
#include "common/status.h"
#include "host/db/tuning_db.h"
#include "host/measure/run_request.h"
#include "host/results/evaluations.h"
#include "host/strategy/strategy.h"
#include "host/tune/tune_run.h"

namespace ktune::host {

struct SearchOptions {
  StrategyKind strategy = StrategyKind::kGrid;
  std::optional<size_t> budget;          // evaluations (--budget)
  std::optional<double> budget_seconds;  // of the search, building included (--budget-time)
  size_t batch = 8;                      // configurations built and measured together
  MeasureOptions measure;
  std::string agent, token_file;
  bool resume = false;
  std::string search_id;          // with resume: which search ("": the newest)
  std::vector<std::string> argv;  // khost tune's arguments, kept for --resume
  std::optional<DbChoice> db;     // the tuning database that records every batch (none: nullopt)
  // Configurations asked first, from the database's records (host/search/warm_start.h); 0: none.
  size_t warm_start = 5;
};

// A variant's evaluation from its rows in a run (pure): the tuning database's summary of it
// (host/db/tuning_db.h VariantResultOf: the median of its kernel-time, else of its wall-time,
// in ns; or why it has none: "NOT OK", the failing outcome, "not measured", "no time").
Evaluation VariantEvaluation(const std::vector<RepetitionRow>& rows, uint32_t variant_index);

// A configuration's evaluation from its evaluations at each shape of a search of several (pure):
// infeasible when it is at one, with that one's status and " at <shape label>" (the first such
// in order); else the geometric mean of its times, which orders configurations as the geometric
// mean of their time relative to each shape's fastest does (host/report/shapes_report.h: the best
// overall). One shape: its evaluation as it is. The run is the first one's.
Evaluation AcrossShapesEvaluation(const std::vector<Evaluation>& at_shapes,
                                  const std::vector<std::string>& shape_labels);

// The search, as above. `tune`: the kernel, root, toolchain, shape and build parallelism (the
// space is its whole feasible grid; the seed is the strategy's).
Status RunSearch(const TuneOptions& tune, const SearchOptions& search);

}  // namespace ktune::host
