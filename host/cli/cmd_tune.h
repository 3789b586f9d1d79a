// khost tune <kernel>: its request, the pure function that parses argv into it (unit-tested), its
// command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "host/cli/command.h"
#include "host/search/search.h"
#include "host/tune/tune_run.h"

namespace ktune::host {

// What to build (host/tune/tune_run.h), or with --apply-best what to apply.
struct TuneRequest : TuneOptions {
  // --apply-best: instead of building, write the winner of a run (run_id, or the newest) into
  // the kernel's spec and launcher constants (host/tune/apply_best.h).
  bool apply_best = false;
  std::string run_id;
  bool from_db = false;  // --from-db: the tuning database's best across its runs (khost best)
  // --strategy (or --resume): search the space on an agent (host/search/search.h) instead.
  std::optional<SearchOptions> search;
  std::string db;  // --db, with --strategy: the tuning database (host/cli/cli.h DbFor)
};
Result<TuneRequest> ParseTuneArgs(const Args& args);
cxxopts::Options TuneCliOptions();
int TuneMain(const Args& args);

}  // namespace ktune::host
