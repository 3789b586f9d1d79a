#include "agent/server/run_handler.h"

#include <boost/asio/post.hpp>

#include <functional>
#include <map>
#include <memory>

#include "agent/measure/journal.h"
#include "agent/server/log.h"
#include "agent/server/run_job.h"
#include "agent/server/server_context.h"
#include "agent/server/session.h"
#include "agent/server/system_check.h"
#include "agent/store/run_files.h"
#include "protocol/convert.h"

namespace ktune::agent {
namespace {

namespace asio = boost::asio;

// Calls `f` with the run handler of every session still watching `state`'s run.
void ForEachWatcher(const RunState& state, const std::function<void(RunHandler&)>& f) {
  for (const auto& w : state.watchers) {
    if (auto s = w.lock()) f(s->run_handler());
  }
}

// The RunAccepted of a run planned into passes.
wire::Envelope AcceptedMessage(const std::string& run_id, const PassPlan& planned) {
  wire::Envelope accepted;
  auto* a = accepted.mutable_run_accepted();
  a->set_run_id(run_id);
  a->set_counter_budget(static_cast<uint32_t>(planned.budget));
  a->set_plan(planned.how);
  for (const Pass& pass : planned.passes) {
    auto* p = a->add_passes();
    for (const EventSpec& e : pass) p->add_events(e.text);
  }
  return accepted;
}

// The Measurer's thread planned the run, which starts now: the plan is kept for a resume (the
// same passes again) and sent to the run's sessions, with the system check of the run's `cpu`
// (agent/server/system_check.h: under `system_root`).
std::function<void(const PassPlan&)> TellPlanned(asio::io_context& io,
                                                 std::shared_ptr<RunState> state, RunFiles files,
                                                 int cpu, std::string system_root) {
  return [&io, state, files, cpu, system_root](const PassPlan& planned) {
    wire::Envelope accepted = AcceptedMessage(files.run_id(), planned);
    SystemCheckToWire(ReadSystemCheck(system_root, cpu),
                      accepted.mutable_run_accepted()->mutable_system());
    const Status kept = files.WriteAccepted(accepted.run_accepted());
    if (!kept.ok()) Log(LogLevel::kError, "run " + files.run_id() + ": " + kept.message());
    asio::post(io, [state, accepted = std::move(accepted)] {
      ForEachWatcher(*state, [&](RunHandler& r) { r.SendAccepted(accepted); });
    });
  };
}

// The measurer's thread made a row durable, between two runs: it goes to the run's sessions.
Journal::OnDurable TellRow(asio::io_context& io, std::shared_ptr<RunState> state) {
  return
      [&io, state](const RepetitionRow& row, const std::string& excerpt, const Profile* profile) {
        wire::Envelope env;
        RowToWire(row, env.mutable_repetition_result());
        env.mutable_repetition_result()->set_output_excerpt(excerpt);
        std::optional<wire::Envelope> samples;
        if (profile) samples = SampleProfileMessage(row, *profile);
        asio::post(io, [state, env = std::move(env), samples = std::move(samples)] {
          ForEachWatcher(*state, [&](RunHandler& r) { r.SendRow(env, samples); });
        });
      };
}

// The Measurer's thread ended the run: a complete run is marked done; the run leaves the
// registry, its bundle is unpinned, and its sessions are told.
std::function<void(const Status&)> TellDone(ServerContext& context, std::shared_ptr<RunState> state,
                                            RunFiles files, std::string bundle) {
  return [&context, state, files, bundle](const Status& status) {
    if (status.ok()) {
      const Status marked = files.MarkDone();
      if (!marked.ok()) Log(LogLevel::kError, "run " + files.run_id() + ": " + marked.message());
    }
    asio::post(context.io, [&context, state, bundle, status, run_id = files.run_id()] {
      context.runs.erase(run_id);
      context.pins.Drop(bundle);
      ForEachWatcher(*state, [&](RunHandler& r) { r.Finish(run_id, status); });
    });
  };
}

}  // namespace

RunHandler::RunHandler(Session& session, ServerContext& context)
    : session_(session), context_(context) {}

Status RunHandler::OnRun(const wire::RunRequest& req) {
  if (run_active_) return InvalidArgument("a run is already active on this connection");
  KT_RETURN_IF_ERROR(ValidateRunId(req.run_id()));
  const RunFiles files = context_.store.RunFilesOf(req.run_id());
  if (context_.runs.count(req.run_id()) || files.HasRequest()) {
    return InvalidArgument("run " + req.run_id() + " exists on this agent (fetch or resume it)");
  }
  KT_ASSIGN_OR_RETURN(Measurer::Job job, JobFor(req, context_.store, context_.cpu));
  KT_RETURN_IF_ERROR(files.WriteRequest(req));
  fetched_request_.reset();
  Launch(std::move(job), 0);
  return Status::Ok();
}

Status RunHandler::OnFetch(const wire::FetchRun& fetch) {
  if (run_active_) return InvalidArgument("a run is already active on this connection");
  KT_RETURN_IF_ERROR(ValidateRunId(fetch.run_id()));
  const RunFiles files = context_.store.RunFilesOf(fetch.run_id());
  KT_ASSIGN_OR_RETURN(wire::RunRequest req, files.ReadRequest());
  // Done is read before the rows: a run is marked done only after its last row is durable, so a
  // run that ends between the two reads is still measuring here and its last rows follow.
  const bool done = files.Done();
  StoredRun run;
  run.journal = JournalFilesOf(files.layout());
  KT_ASSIGN_OR_RETURN(run.rows, Journal::ReadRows(run.journal));  // a torn line is left out
  if (auto accepted = files.ReadAccepted(); accepted.ok()) run.accepted = std::move(*accepted);
  fetched_request_ = req;
  auto active = context_.runs.find(fetch.run_id());
  const bool measuring = active != context_.runs.end();
  if (!fetch.resume() || done) return SendStored(fetch, run, done, measuring);
  if (!measuring) return Resume(req, run);
  Join(*active->second, run);
  return Status::Ok();
}

Status RunHandler::SendStored(const wire::FetchRun& fetch, const StoredRun& run, bool done,
                              bool measuring) {
  if (!run.accepted) {
    return NotFound("run " + fetch.run_id() + " has measured nothing yet" +
                    (measuring ? " (it is queued)" : ""));
  }
  Replay(run);
  wire::Envelope finished;
  finished.mutable_run_done()->set_run_id(fetch.run_id());
  finished.mutable_run_done()->set_rows(rows_sent_);
  finished.mutable_run_done()->set_complete(done);
  session_.Send(finished);
  return Status::Ok();
}

Status RunHandler::Resume(const wire::RunRequest& req, const StoredRun& run) {
  KT_ASSIGN_OR_RETURN(Measurer::Job job, JobFor(req, context_.store, context_.cpu));
  if (run.accepted) Replay(run);  // measured after the stored rows
  Launch(std::move(job), rows_sent_);
  return Status::Ok();
}

void RunHandler::Join(RunState& state, const StoredRun& run) {
  // A row made durable between reading the journal and joining comes twice; khost keeps the
  // first.
  state.watchers.push_back(session_.weak_from_this());
  run_active_ = true;
  rows_sent_ = 0;
  if (run.accepted) Replay(run);  // else RunAccepted follows when it is planned
}

void RunHandler::Replay(const StoredRun& run) {
  wire::Envelope a;
  *a.mutable_run_accepted() = *run.accepted;
  a.mutable_run_accepted()->set_rows_stored(static_cast<uint32_t>(run.rows.size()));
  SendAccepted(std::move(a));
  const std::map<RowKey, wire::Envelope> profiles = Journal::ReadProfiles(run.journal);
  rows_sent_ = 0;
  for (const RepetitionRow& row : run.rows) {
    if (row.variant_index >= static_cast<uint32_t>(fetched_request_->variants_size())) continue;
    wire::Envelope env;
    RowToWire(row, env.mutable_repetition_result());
    session_.Send(env);
    ++rows_sent_;
    if (auto p = profiles.find(KeyOf(row)); p != profiles.end()) session_.Send(p->second);
  }
}

void RunHandler::Launch(Measurer::Job job, size_t sent) {
  const std::string run_id = job.plan.run_id;
  auto state = std::make_shared<RunState>();
  state->watchers.push_back(session_.weak_from_this());
  context_.runs[run_id] = state;
  run_active_ = true;
  rows_sent_ = static_cast<uint32_t>(sent);
  context_.pins.Add(job.bundle_id);  // not evicted while the run waits or measures
  context_.store.Touch(job.bundle_id);
  const RunFiles files = context_.store.RunFilesOf(run_id);
  job.on_planned = TellPlanned(context_.io, state, files, job.plan.cpu, context_.system_root);
  job.plan.machine_state = [root = context_.system_root, cpu = job.plan.cpu] {
    return ReadMachineState(root, cpu);
  };
  job.on_row = TellRow(context_.io, state);
  job.on_done = TellDone(context_, state, files, job.bundle_id);
  const size_t ahead = context_.measurer->Enqueue(std::move(job));
  if (ahead > 0) {
    Log(LogLevel::kInfo, "run " + run_id + " queued behind " + std::to_string(ahead));
    wire::Envelope queued;
    queued.mutable_run_queued()->set_run_id(run_id);
    queued.mutable_run_queued()->set_position(static_cast<uint32_t>(ahead));
    session_.Send(queued);
  }
}

void RunHandler::SendAccepted(wire::Envelope accepted) {
  if (fetched_request_) *accepted.mutable_run_accepted()->mutable_request() = *fetched_request_;
  session_.Send(accepted);
}

void RunHandler::SendRow(const wire::Envelope& row, const std::optional<wire::Envelope>& samples) {
  session_.Send(row);
  ++rows_sent_;
  if (samples) session_.Send(*samples);
}

void RunHandler::Finish(const std::string& run_id, const Status& status) {
  run_active_ = false;
  if (!status.ok()) {
    session_.Send(ErrorMessage(status));
    return;
  }
  wire::Envelope done;
  done.mutable_run_done()->set_run_id(run_id);
  done.mutable_run_done()->set_rows(rows_sent_);
  done.mutable_run_done()->set_complete(true);
  session_.Send(done);
}

}  // namespace ktune::agent
