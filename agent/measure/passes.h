// Splitting a run's events into passes that fit the PMU, so that no value is silently
// multiplexed: each pass's events count together for the whole run (time_running ==
// time_enabled), and a variant is run once per pass.
//
// The counter budget of a CPU model (how many events count together) is probed: a growing group
// of the requested events is opened on the agent's own thread, a short busy loop runs, and the
// largest group whose members all ran the whole time wins. An event that does not count even
// alone is left out of the probe (it tells nothing about the counters). A budget is remembered in
// the store (pmu-budgets) per CPU model only when the probe hit a real limit (the event that did
// not fit counts alone), and the largest such budget is kept: a smaller one found with events
// tied to particular counters would only cost passes. Every pass is then tried for real and split
// further when its events do not count together.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/events.h"
#include "common/status.h"

namespace ktune::agent {

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
  // Remembers `budget` unless a larger one is already known.
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

// What the planner asks the PMU: does an event open, and do events count together (agent/
// perf_counters.h). Tests substitute a fake PMU.
struct PmuProbe {
  std::function<bool(const EventSpec&)> opens;
  std::function<bool(const Pass&)> count_together;
};
PmuProbe RealPmu();

// Plans the passes for `events`, consulting and updating `memory` under `model`.
PassPlan PlanPasses(const std::vector<EventSpec>& events, const std::string& model,
                    BudgetMemory& memory, const PmuProbe& pmu = RealPmu());

// The plan with an injected budget instead of the PMU: for tests on machines without a PMU.
// Software events are split too, so that the passes path runs for real.
PassPlan PlanPassesWithFakeBudget(const std::vector<EventSpec>& events, int budget);

}  // namespace ktune::agent
