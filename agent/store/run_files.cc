#include "agent/store/run_files.h"

#include <unistd.h>

#include "common/fs.h"

namespace ktune::agent {

bool RunFiles::HasRequest() const {
  return ::access(layout_.request().c_str(), F_OK) == 0;
}

Status RunFiles::WriteRequest(const wire::RunRequest& request) const {
  return WriteFileAtomic(layout_.request(), request.SerializeAsString());
}

Result<wire::RunRequest> RunFiles::ReadRequest() const {
  auto bytes = ReadFile(layout_.request());
  if (!bytes.ok()) return NotFound("no run " + run_id_ + " on this agent");
  wire::RunRequest request;
  if (!request.ParseFromString(*bytes)) {
    return ProtocolError("run " + run_id_ + ": its stored request does not parse");
  }
  return request;
}

Status RunFiles::WriteAccepted(const wire::RunAccepted& accepted) const {
  return WriteFileAtomic(layout_.accepted(), accepted.SerializeAsString());
}

Result<std::optional<wire::RunAccepted>> RunFiles::ReadAccepted() const {
  auto bytes = ReadFile(layout_.accepted());
  if (!bytes.ok()) return std::optional<wire::RunAccepted>();
  wire::RunAccepted accepted;
  if (!accepted.ParseFromString(*bytes)) return ProtocolError("run " + run_id_ + ": bad plan");
  return std::optional<wire::RunAccepted>(std::move(accepted));
}

bool RunFiles::Done() const {
  return ::access(layout_.done().c_str(), F_OK) == 0;
}

Status RunFiles::MarkDone() const {
  return WriteFileAtomic(layout_.done(), "");
}

}  // namespace ktune::agent
