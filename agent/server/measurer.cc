#include "agent/server/measurer.h"

#include "agent/measure/affinity.h"
#include "agent/server/log.h"
#include "common/fs.h"

namespace ktune::agent {

Result<std::unique_ptr<Measurer>> Measurer::Create(std::string model, std::string budgets_path,
                                                   int fake_budget,
                                                   std::vector<std::string> exec_wrapper,
                                                   Sandbox sandbox) {
  KT_ASSIGN_OR_RETURN(Canceller c, Canceller::Create());
  return std::unique_ptr<Measurer>(new Measurer(std::move(c), std::move(model),
                                                BudgetMemory(std::move(budgets_path)), fake_budget,
                                                std::move(exec_wrapper), std::move(sandbox)));
}

Measurer::Measurer(Canceller c, std::string model, BudgetMemory memory, int fake_budget,
                   std::vector<std::string> exec_wrapper, Sandbox sandbox)
    : canceller_(std::move(c)),
      model_(std::move(model)),
      memory_(std::move(memory)),
      fake_budget_(fake_budget),
      exec_wrapper_(std::move(exec_wrapper)),
      sandbox_(std::move(sandbox)),
      thread_([this] { Loop(); }) {}

size_t Measurer::Enqueue(Job job) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t ahead = jobs_.size() + (busy_ ? 1 : 0);
  jobs_.push_back(std::move(job));
  cv_.notify_one();
  return ahead;
}

void Measurer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  canceller_.Cancel();
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Measurer::Loop() {
  for (;;) {
    Job job;
    if (!Next(job)) return;
    Log(LogLevel::kInfo, "run " + job.plan.run_id + ": " +
                             std::to_string(job.plan.variants.size()) + " variants" +
                             (job.planned ? ", resumed" : ""));
    Plan(job);
    job.plan.exec_wrapper = exec_wrapper_;
    Status s = Measure(job);
    Log(s.ok() ? LogLevel::kInfo : LogLevel::kError,
        "run " + job.plan.run_id + (s.ok() ? " done" : " failed: " + s.message()));
    job.on_done(s);
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
  }
}

bool Measurer::Next(Job& job) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
  if (stopping_) return false;
  job = std::move(jobs_.front());
  jobs_.pop_front();
  busy_ = true;
  return true;
}

void Measurer::Plan(Job& job) {
  if (job.planned) return;
  PassPlan planned;
  if (job.plan.multiplex) {
    planned.passes = {job.events};
    planned.how = "multiplexed";
  } else if (fake_budget_ > 0) {
    planned = PlanPassesWithFakeBudget(job.events, fake_budget_);
  } else {
    // The budget is the measured CPU's: its counters, its users (a watchdog, another tool).
    const PinThread on_measured_cpu(job.plan.cpu);
    planned = PlanPasses(job.events, model_, memory_);
  }
  job.plan.passes = planned.passes;
  job.on_planned(planned);
}

Status Measurer::Measure(Job& job) {
  // agentd's other threads (the sessions sending rows, the acceptor) run elsewhere while kernels
  // run on the measured CPU. This one, which launches the kernels and waits for them, runs on it,
  // as perf stat does under taskset: a kernel is then cloned on its CPU and its exit wakes a
  // thread there, with no migration and no wake-up of another CPU between two runs; while a
  // kernel runs, this thread sleeps (Workload::WaitForExit reads its output only now and then).
  // It also writes and syncs the journal, between two runs (agent/measure/journal.h).
  const KeepThreadsOff off_measured_cpu(job.plan.cpu);
  KT_ASSIGN_OR_RETURN(std::unique_ptr<Journal> journal, Journal::Open(job.journal, job.on_row));
  const PinThread on_measured_cpu(job.plan.cpu);
  for (const RepetitionRow& row : journal->rows_before()) job.plan.skip.insert(KeyOf(row));
  MeasurePlan& plan = job.plan;
  plan.limits = sandbox_.limits;
  plan.user = sandbox_.user;
  if (plan.user) KT_RETURN_IF_ERROR(CheckReachable(*plan.user, plan.tree_dir));
  KT_RETURN_IF_ERROR(MakeWorkDir(plan.work_dir, plan.tree_dir, plan.user));
  Status measured = MeasurePlanRows(plan, *journal, canceller_);
  RemoveTree(plan.work_dir);
  Status written = journal->Close();
  return written.ok() ? measured : written;
}

}  // namespace ktune::agent
