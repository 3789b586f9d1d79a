// The Measurer: one thread that measures the queued runs one at a time, in arrival order. A job
// is a run's plan (agent/measure/measure.h) and the callbacks that tell its sessions: when its
// passes are planned (agent/measure/passes.h), each row once its journal made it durable
// (agent/measure/journal.h), and when it ended.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/measure/journal.h"
#include "agent/measure/measure.h"
#include "agent/measure/passes.h"
#include "agent/measure/sandbox.h"
#include "agent/measure/workload.h"
#include "common/events.h"
#include "common/status.h"

namespace ktune::agent {

class Measurer {
 public:
  struct Job {
    MeasurePlan plan;      // its passes are planned when the job starts, unless `planned`
    bool planned = false;  // a resumed run: plan.passes are the stored ones
    std::vector<EventSpec> events;
    JournalFiles journal;  // where the run's rows go (agent/server/run_job.h: JournalFilesOf)
    std::string bundle_id;
    std::function<void(const PassPlan&)> on_planned;
    Journal::OnDurable on_row;
    std::function<void(const Status&)> on_done;
  };

  // `model` names this machine's CPU in the budget memory kept at `budgets_path`;
  // `fake_budget` > 0 replaces the PMU probe (for machines without a PMU, in tests).
  // `exec_wrapper` (may be empty) runs every variant (AgentOptions).
  // `sandbox` says as whom and within which limits kernels run (agent/measure/sandbox.h).
  static Result<std::unique_ptr<Measurer>> Create(std::string model, std::string budgets_path,
                                                  int fake_budget,
                                                  std::vector<std::string> exec_wrapper,
                                                  Sandbox sandbox);
  ~Measurer() { Stop(); }

  // Queues a job; returns how many are ahead of it (the one measuring included).
  size_t Enqueue(Job job);

  // Cancels the job measuring and joins the thread; queued jobs are dropped.
  void Stop();

  // What every variant runs under (AgentOptions::exec_wrapper), for the capabilities.
  const std::vector<std::string>& exec_wrapper() const { return exec_wrapper_; }

 private:
  Measurer(Canceller c, std::string model, BudgetMemory memory, int fake_budget,
           std::vector<std::string> exec_wrapper, Sandbox sandbox);

  void Loop();
  // The next job, or false when stopping.
  bool Next(Job& job);
  // Splits the job's events into passes (unless it was planned before) and tells its sessions.
  void Plan(Job& job);
  Status Measure(Job& job);

  Canceller canceller_;
  const std::string model_;
  BudgetMemory memory_;  // used by the measurement thread only
  const int fake_budget_;
  const std::vector<std::string> exec_wrapper_;
  const Sandbox sandbox_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  bool busy_ = false;   // a job is measuring
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace ktune::agent
