// What khost analyze --search shows of searches (khost tune --strategy, host/search/): per
// search, how it went (strategy, evaluations, infeasible ones, the best and when it was found),
// its convergence (the best time so far against the evaluations, one line per search, drawn by
// host/report/plots.h's ConvergencePlot), and every configuration it evaluated, in order. Pure.
#pragma once

#include <string>
#include <vector>

#include "host/report/table.h"
#include "host/results/evaluations.h"

namespace ktune::host {

struct SearchSeries {
  std::string id;     // the search id
  std::string label;  // its strategy and seed, from the journal's comments: "bayes, seed 1"
  Evaluations evaluations;
};

// "bayes, seed 1" from a journal's "strategy bayes, seed 1, budget ..." comment; the id when the
// journal has none.
std::string SearchLabel(const std::string& id, const Evaluations& evaluations);

// The best time (ns) after each evaluation; +infinity before the first feasible one.
std::vector<double> BestSoFar(const Evaluations& evaluations);

// One row per search: label, evaluations, infeasible, best (ms), found at, best configuration.
Table SearchSummaryTable(const std::vector<SearchSeries>& searches);
// Every evaluation of one search, in order: #, the parameters, time (ms), status, run; the best
// marked.
Table EvaluationsTable(const SearchSeries& search);

}  // namespace ktune::host
