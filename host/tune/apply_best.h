// khost tune --apply-best (docs/KSPEC.md): a run's winner written back into its kernel's spec (a
// best: line with a comment above it, host/tune/kspec_best.h) and into the launcher constants
// beside the spec (best_constants.c, best_blk_constants.json). Which variant won is the report
// layer's answer (host/report/analysis.h): khost tune's command asks it and passes the winner
// down as a BestChoice.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/tune/kspec.h"

namespace ktune::host {

// The spec --apply-best edits: its text, and the spec read without its best: line (which this
// replaces: an old one may no longer fit the spec).
struct SpecForBest {
  std::string text;
  KernelSpec spec;
};
Result<SpecForBest> ReadSpecForBest(const std::string& kernel, const std::string& kernels_dir);

// A run's winner, as the spec needs it.
struct BestChoice {
  std::string run_id;
  std::string variant;              // its name
  std::vector<std::string> values;  // of each of the spec's params in order, "" where it has none
  std::string why;  // for the comment: "wall_time 1.2 ms, faster than the runner-up"
};

// Writes `best` into the spec and its launcher constants (best_constants.c,
// best_blk_constants.json, then the spec) and returns its best: line ("best: P=1 Q=2"). Nothing
// is written when a value is not an integer or the configuration is not one of the spec as it is
// now (its candidates or constraints may have changed since the run).
Result<std::string> ApplyBest(const SpecForBest& target, const BestChoice& best);

}  // namespace ktune::host
