// Splitting a run's events into passes that fit the PMU, so that no value is silently
// multiplexed: each pass's events count together for the whole run (time_running ==
// time_enabled), and a variant is run once per pass.
//
// The counter budget of a CPU model (how many events count together) is probed once: a growing
// group of the requested events is opened on the agent's own thread, a short busy loop runs, and
// the largest group whose members all ran the whole time wins. It is remembered in the store
// (pmu-budgets) per CPU model. A pass that still does not count together (events restricted to
// some counters) is split further, each candidate tried for real.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/events.h"
#include "common/status.h"

namespace ktune {

using Pass = std::vector<EventSpec>;

// Pure: `free` events (software ones, which need no counter, and those that do not open here and
// will be reported so) ride in the first pass; `counted` follow in their order, at most
// `budget` per pass. A budget of 0 or less puts everything in one pass.
std::vector<Pass> SplitIntoPasses(const Pass& free, const Pass& counted, int budget);

// Counter budgets per CPU model, kept in a small text file ("<model> <budget>" lines).
class BudgetMemory {
 public:
  explicit BudgetMemory(std::string path);
  // The remembered budget, or -1.
  int Get(const std::string& model) const;
  Status Put(const std::string& model, int budget);

 private:
  std::string path_;
  std::map<std::string, int> budgets_;
};

struct PassPlan {
  std::vector<Pass> passes;
  int budget = 0;   // events per pass; 0 when only software events were asked
  std::string how;  // "probed", "remembered", "fake budget", "multiplexed", "software only"
};

// Plans the passes for `events` on this machine (the real probe), consulting and updating
// `memory` under `model`.
PassPlan PlanPasses(const std::vector<EventSpec>& events, const std::string& model,
                    BudgetMemory& memory);

// The plan with an injected budget instead of the PMU: for tests on machines without a PMU.
// Software events are split too, so that the passes path runs for real.
PassPlan PlanPassesWithFakeBudget(const std::vector<EventSpec>& events, int budget);

}  // namespace ktune
