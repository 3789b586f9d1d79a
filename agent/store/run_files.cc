#include "agent/store/run_files.h"

#include <unistd.h>

#include "common/fs.h"

namespace ktune::agent {
namespace {

constexpr const char* kRequestFile = "request.pb";
constexpr const char* kAcceptedFile = "accepted.pb";
constexpr const char* kDoneFile = "done";

}  // namespace

bool RunFiles::HasRequest() const {
  return ::access(Path(kRequestFile).c_str(), F_OK) == 0;
}

Status RunFiles::WriteRequest(const wire::RunRequest& request) const {
  return WriteFileAtomic(Path(kRequestFile), request.SerializeAsString());
}

Result<wire::RunRequest> RunFiles::ReadRequest() const {
  auto bytes = ReadFile(Path(kRequestFile));
  if (!bytes.ok()) return NotFound("no run " + run_id_ + " on this agent");
  wire::RunRequest request;
  if (!request.ParseFromString(*bytes)) {
    return ProtocolError("run " + run_id_ + ": its stored request does not parse");
  }
  return request;
}

Status RunFiles::WriteAccepted(const wire::RunAccepted& accepted) const {
  return WriteFileAtomic(Path(kAcceptedFile), accepted.SerializeAsString());
}

Result<std::optional<wire::RunAccepted>> RunFiles::ReadAccepted() const {
  auto bytes = ReadFile(Path(kAcceptedFile));
  if (!bytes.ok()) return std::optional<wire::RunAccepted>();
  wire::RunAccepted accepted;
  if (!accepted.ParseFromString(*bytes)) return ProtocolError("run " + run_id_ + ": bad plan");
  return std::optional<wire::RunAccepted>(std::move(accepted));
}

bool RunFiles::Done() const {
  return ::access(Path(kDoneFile).c_str(), F_OK) == 0;
}

Status RunFiles::MarkDone() const {
  return WriteFileAtomic(Path(kDoneFile), "");
}

}  // namespace ktune::agent
