#include "agent/measure/passes.h"

#include "agent/measure/perf_counters.h"
#include "common/fs.h"
#include "common/strings.h"

namespace ktune::agent {
namespace {

// Splits `pass` into passes that each count together, trying each event in the first pass it
// fits (first fit, in order).
std::vector<Pass> SplitUntilTheyFit(const Pass& pass, const PmuProbe& pmu) {
  std::vector<Pass> out;
  for (const EventSpec& e : pass) {
    bool placed = false;
    for (Pass& p : out) {
      Pass candidate = p;
      candidate.push_back(e);
      if (pmu.count_together(candidate)) {
        p = std::move(candidate);
        placed = true;
        break;
      }
    }
    if (!placed) out.push_back({e});  // alone; if even that does not count, it says so later
  }
  return out;
}

}  // namespace

std::vector<Pass> SplitIntoPasses(const Pass& free, const Pass& counted, int budget) {
  std::vector<Pass> passes = {free};
  size_t in_pass = 0;
  for (const EventSpec& e : counted) {
    if (budget > 0 && in_pass == static_cast<size_t>(budget)) {
      passes.emplace_back();
      in_pass = 0;
    }
    passes.back().push_back(e);
    ++in_pass;
  }
  return passes;
}

BudgetMemory::BudgetMemory(std::string path) : path_(std::move(path)) {
  auto text = ReadFile(path_);
  if (!text.ok()) return;
  for (std::string_view line : Split(*text, '\n')) {
    const size_t space = line.rfind(' ');
    if (space == std::string_view::npos) continue;
    auto budget = ParseInt(line.substr(space + 1));
    if (budget.ok() && *budget > 0) budgets_[std::string(line.substr(0, space))] = *budget;
  }
}

int BudgetMemory::Get(const std::string& model) const {
  auto it = budgets_.find(model);
  return it == budgets_.end() ? -1 : it->second;
}

Status BudgetMemory::Put(const std::string& model, int budget) {
  int& kept = budgets_[model];
  if (budget <= kept) return Status::Ok();  // the largest budget seen stands
  kept = budget;
  std::string text;
  for (const auto& [m, b] : budgets_) text += m + " " + std::to_string(b) + "\n";
  return WriteFileAtomic(path_, text);
}

PmuProbe RealPmu() {
  return {[](const EventSpec& e) { return ProbeEvent(e).empty(); }, CountTogether};
}

namespace {

// The counter budget found by growing a group of `counted` until an event that counts alone
// does not count with the others; remembered in `memory` when such a limit was met.
int ProbeBudget(const Pass& counted, const std::string& model, BudgetMemory& memory,
                const PmuProbe& pmu) {
  Pass group;
  for (const EventSpec& e : counted) {
    if (!pmu.count_together({e})) continue;  // never counts: says nothing about the counters
    group.push_back(e);
    if (pmu.count_together(group)) continue;
    group.pop_back();  // `e` counts alone but not with the others: the counters are full
    if (!group.empty()) (void)memory.Put(model, static_cast<int>(group.size()));
    break;
  }
  // No limit met (a lower bound only, not remembered), or nothing counted at all.
  return std::max<int>(1, static_cast<int>(group.size()));
}

// `free` and `counted` in passes of at most `budget` counted events, each pass tried for real
// and split further when its events do not count together.
std::vector<Pass> FitPasses(const Pass& free, const Pass& counted, int budget,
                            const PmuProbe& pmu) {
  std::vector<Pass> passes;
  const std::vector<Pass> split = SplitIntoPasses(free, counted, budget);
  for (size_t i = 0; i < split.size(); ++i) {
    // The first pass begins with the free events; the rest must fit the counters together.
    const size_t skip = i == 0 ? free.size() : 0;
    const Pass needs(split[i].begin() + static_cast<long>(skip), split[i].end());
    if (pmu.count_together(needs)) {
      passes.push_back(split[i]);
      continue;
    }
    std::vector<Pass> fitted = SplitUntilTheyFit(needs, pmu);
    if (i == 0) fitted.front().insert(fitted.front().begin(), free.begin(), free.end());
    for (Pass& p : fitted) passes.push_back(std::move(p));
  }
  return passes;
}

}  // namespace

PassPlan PlanPasses(const std::vector<EventSpec>& events, const std::string& model,
                    BudgetMemory& memory, const PmuProbe& pmu) {
  PassPlan plan;
  Pass free, counted;
  for (const EventSpec& e : events) {
    (IsSoftwareEvent(e) || !pmu.opens(e) ? free : counted).push_back(e);
  }
  if (counted.empty()) {
    plan.passes = {free};
    plan.how = "software only";
    return plan;
  }
  plan.budget = memory.Get(model);
  plan.how = "remembered";
  if (plan.budget <= 0) {
    plan.how = "probed";
    plan.budget = ProbeBudget(counted, model, memory, pmu);
  }
  plan.passes = FitPasses(free, counted, plan.budget, pmu);
  return plan;
}

PassPlan PlanPassesWithFakeBudget(const std::vector<EventSpec>& events, int budget) {
  PassPlan plan;
  plan.budget = budget;
  plan.how = "fake budget";
  plan.passes = SplitIntoPasses({}, events, budget);
  return plan;
}

}  // namespace ktune::agent
