// A session's runs: RunRequest (a new run, queued on the Measurer) and FetchRun (an earlier run:
// its stored plan and rows replayed from its journal; with `resume`, then the rest, by joining
// the run still measuring or, after the agent restarted, measuring what its journal lacks). A run
// outlives its session: it is registered by id in the ServerContext with the sessions watching
// it, and what the Measurer reports is posted to each of them on the io thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/server/measurer.h"
#include "common/results.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

class Session;
struct RunState;
struct ServerContext;

class RunHandler {
 public:
  RunHandler(Session& session, ServerContext& context);

  Status OnRun(const wire::RunRequest& req);
  Status OnFetch(const wire::FetchRun& fetch);

  // What the run this session watches reports (on the io thread):
  // its plan (a session that fetched the run also gets what the run was asked),
  void SendAccepted(wire::Envelope accepted);
  // a row made durable, with its samples if it has any,
  void SendRow(const wire::Envelope& row, const std::optional<wire::Envelope>& samples);
  // and its end.
  void Finish(const std::string& run_id, const Status& status);

 private:
  // What a fetched run's directory holds: its plan, if it was planned, and its rows.
  struct StoredRun {
    JournalFiles journal;
    std::optional<wire::RunAccepted> accepted;
    std::vector<RepetitionRow> rows;
  };
  // Fetch without resume, or of a run that finished: the stored plan and rows, then RunDone.
  Status SendStored(const wire::FetchRun& fetch, const StoredRun& run, bool done, bool measuring);
  // Resume a run that stopped (its agent restarted): measure what is missing.
  Status Resume(const wire::RunRequest& req, const StoredRun& run);
  // Resume a run still measuring: watch it.
  void Join(RunState& state, const StoredRun& run);
  // Sends the stored plan and rows (with their profiles) of the fetched run.
  void Replay(const StoredRun& run);
  // Queues `job` with this session watching it; `sent` rows of it went out already.
  void Launch(Measurer::Job job, size_t sent);

  Session& session_;
  ServerContext& context_;
  bool run_active_ = false;
  uint32_t rows_sent_ = 0;                           // of the run this session watches
  std::optional<wire::RunRequest> fetched_request_;  // of the run it fetched
};

}  // namespace ktune::agent
