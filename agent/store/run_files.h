// The files of a run beside its journal (runs/<run_id>/, agent/store/layout.h): what was asked
// (request.pb, the RunRequest as it came), how it was planned (accepted.pb, the RunAccepted
// without the rows) and that it finished (done, empty). They let a later session fetch the run
// and a restarted agent resume it. The one place these files are written and read (their names:
// agent/store/layout.h).
#pragma once

#include <optional>
#include <string>

#include "agent/store/layout.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

class RunFiles {
 public:
  // The files of run `run_id` in its directory (StoreLayout::Run), which need not exist yet.
  RunFiles(std::string run_id, RunLayout layout)
      : run_id_(std::move(run_id)), layout_(std::move(layout)) {}

  const std::string& run_id() const { return run_id_; }
  const RunLayout& layout() const { return layout_; }

  // Whether the run was asked on this agent (its request is kept).
  bool HasRequest() const;
  Status WriteRequest(const wire::RunRequest& request) const;
  // NotFound when the run was never asked here; a protocol error when its file does not parse.
  Result<wire::RunRequest> ReadRequest() const;

  Status WriteAccepted(const wire::RunAccepted& accepted) const;
  // The stored plan: nullopt while the run has not been planned; a protocol error when its file
  // does not parse.
  Result<std::optional<wire::RunAccepted>> ReadAccepted() const;

  // Whether the run measured everything it was asked.
  bool Done() const;
  Status MarkDone() const;

 private:
  std::string run_id_;
  RunLayout layout_;
};

}  // namespace ktune::agent
