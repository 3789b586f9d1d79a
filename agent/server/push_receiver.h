// A session's pushes: PushManifest -> PushNeed (the blobs this agent lacks) -> BlobChunks, each
// blob written, verified and published by the store (a chunk may be a delta against a blob of
// the same bundle already stored) -> BlobStored -> PushCommit -> the bundle's tree is built ->
// PushDone. A manifest is checked against the size and quota limits before anything of it is
// stored (evicting the least recently used bundles no run or push holds); the bundle being
// pushed is pinned until it is committed or the session ends.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "agent/store/store.h"
#include "common/manifest.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

class Session;
struct ServerContext;

class PushReceiver {
 public:
  PushReceiver(Session& session, ServerContext& context);
  ~PushReceiver();  // unpins the bundle of a push not committed

  Status OnManifest(const wire::PushManifest& pm);
  Status OnChunk(const wire::BlobChunk& chunk);
  Status OnCommit(const wire::PushCommit& commit);

 private:
  // Refuses a bundle over the size limit, and makes room for it under the quota.
  Status MakeRoomFor(const Manifest& m, const std::string& id);
  // Records the manifest and pins its bundle; the last push's state goes.
  Status BeginPush(const Manifest& m, const std::string& id);
  // The PushNeed for the blobs the store lacks, which become the pending ones.
  Result<wire::Envelope> NeedReply(const Manifest& m, const std::string& id);
  Status ReceiveChunk(const wire::BlobChunk& chunk);
  Result<std::string> DeltaBase(const std::string& base_hash);

  Session& session_;
  ServerContext& context_;
  std::string pushing_;  // the bundle this session's last manifest named, until committed
  std::map<std::string, uint64_t> pending_;     // blobs the last manifest lacks: hash -> size
  std::map<std::string, uint64_t> push_blobs_;  // every blob of that manifest: hash -> size
  // The blob being received, and the base its chunks were compressed against (may be empty).
  struct IncomingBlob {
    BlobWriter writer;
    std::string base_hash, base;
  };
  std::optional<IncomingBlob> blob_;
  bool push_failed_ = false;  // a blob of this push failed: its remaining chunks are dropped
};

}  // namespace ktune::agent
