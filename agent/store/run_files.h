// The files of a run beside its journal (runs/<run_id>/, agent/store/layout.h): what was asked
// (request.pb, the RunRequest as it came), how it was planned (accepted.pb, the RunAccepted
// without the rows) and that it finished (done, empty). They let a later session fetch the run
// and a restarted agent resume it. The one place these files are named, written and read.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

class RunFiles {
 public:
  // The files of run `run_id` in `dir` (Store::Run), which need not exist yet.
  RunFiles(std::string run_id, std::string dir)
      : run_id_(std::move(run_id)), dir_(std::move(dir)) {}

  const std::string& run_id() const { return run_id_; }
  const std::string& dir() const { return dir_; }

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
  std::string Path(const char* name) const { return dir_ + "/" + name; }
  std::string run_id_, dir_;
};

}  // namespace ktune::agent
