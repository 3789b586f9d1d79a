#include "agent/server/push_receiver.h"

#include <set>
#include <vector>

#include "agent/server/log.h"
#include "agent/server/server_context.h"
#include "agent/server/session.h"
#include "common/fs.h"
#include "protocol/convert.h"
#include "protocol/frame_codec.h"

namespace ktune::agent {

PushReceiver::PushReceiver(Session& session, ServerContext& context)
    : session_(session), context_(context) {}

PushReceiver::~PushReceiver() {
  if (!pushing_.empty()) context_.pins.Drop(pushing_);
}

Status PushReceiver::OnManifest(const wire::PushManifest& pm) {
  Manifest m = ManifestFromWire(pm);
  KT_RETURN_IF_ERROR(NormalizeManifest(m));
  const std::string id = BundleId(m);
  // Limits first: nothing of a bundle that cannot fit is stored.
  KT_RETURN_IF_ERROR(MakeRoomFor(m, id));
  KT_RETURN_IF_ERROR(BeginPush(m, id));
  KT_ASSIGN_OR_RETURN(wire::Envelope reply, NeedReply(m, id));
  Log(LogLevel::kInfo, "push " + m.kernel + " (bundle " + id.substr(0, 12) +
                           "): " + std::to_string(m.files.size()) + " files, " +
                           std::to_string(pending_.size()) + " blobs missing");
  session_.Send(reply);
  return Status::Ok();
}

Status PushReceiver::MakeRoomFor(const Manifest& m, const std::string& id) {
  Store& store = context_.store;
  const StoreLimits& limits = context_.limits;
  uint64_t bundle_bytes = 0, incoming_bytes = 0;
  std::set<std::string> blobs;  // its own, which eviction must leave
  for (const FileEntry& f : m.files) {
    bundle_bytes += f.size_bytes;
    if (blobs.insert(f.hash).second && !store.HasBlob(f.hash)) incoming_bytes += f.size_bytes;
  }
  if (bundle_bytes > limits.max_bundle_bytes) {
    return ResourceExhausted("bundle " + m.kernel + " is " + std::to_string(bundle_bytes) +
                             " bytes; this agent takes at most " +
                             std::to_string(limits.max_bundle_bytes) + " (agentd --max-bundle-mb)");
  }
  std::set<std::string> in_use = context_.pins.held();
  in_use.insert(id);
  std::vector<std::string> evicted;
  const Status room =
      store.MakeRoom(incoming_bytes + bundle_bytes, limits.quota_bytes, in_use, blobs, &evicted);
  for (const std::string& gone : evicted) {
    Log(LogLevel::kInfo, "store quota: evicted bundle " + gone.substr(0, 12));
  }
  return room;
}

Status PushReceiver::BeginPush(const Manifest& m, const std::string& id) {
  KT_RETURN_IF_ERROR(context_.store.SaveManifest(m).status());
  context_.store.Touch(id);
  if (!pushing_.empty()) context_.pins.Drop(pushing_);
  pushing_ = id;
  context_.pins.Add(id);
  pending_.clear();
  push_blobs_.clear();
  for (const FileEntry& f : m.files) push_blobs_.emplace(f.hash, f.size_bytes);
  blob_.reset();
  push_failed_ = false;
  return Status::Ok();
}

Result<wire::Envelope> PushReceiver::NeedReply(const Manifest& m, const std::string& id) {
  wire::Envelope reply;
  auto* need = reply.mutable_push_need();
  need->set_bundle_id(id);
  for (const FileEntry& f : m.files) {
    if (context_.store.HasBlob(f.hash)) continue;
    auto [it, inserted] = pending_.emplace(f.hash, f.size_bytes);
    if (!inserted && it->second != f.size_bytes) {
      return InvalidArgument("one hash with two sizes in manifest: " + f.hash);
    }
    if (inserted) need->add_missing_hashes(f.hash);
  }
  return reply;
}

Status PushReceiver::OnChunk(const wire::BlobChunk& chunk) {
  // The rest of a push whose blob failed: its error went out with the first failing chunk,
  // and khost gives up on the push at that error. Writing the blobs behind it would only fill
  // the disk (and hold space) for nothing; the next manifest starts afresh.
  if (push_failed_) return Status::Ok();
  Status s = ReceiveChunk(chunk);
  if (!s.ok()) {
    blob_.reset();  // its partial file goes at once, never visible
    if (s.code() != ErrorCode::kProtocol) push_failed_ = true;
  }
  return s;
}

Status PushReceiver::ReceiveChunk(const wire::BlobChunk& chunk) {
  auto it = pending_.find(chunk.hash());
  if (it == pending_.end()) return ProtocolError("blob chunk for a blob that was not requested");
  if (blob_ && blob_->writer.hash() != chunk.hash()) {
    return ProtocolError("blob chunk for a new blob before the last one ended");
  }
  if (!blob_) {
    KT_ASSIGN_OR_RETURN(std::string base, DeltaBase(chunk.base_hash()));
    auto w = context_.store.BeginBlob(chunk.hash(), it->second);
    if (!w.ok()) return w.status();
    blob_.emplace(IncomingBlob{std::move(w).value(), chunk.base_hash(), std::move(base)});
  } else if (chunk.base_hash() != blob_->base_hash) {
    return ProtocolError("chunks of one blob name different bases");
  }
  KT_ASSIGN_OR_RETURN(std::string raw,
                      DecompressChunk(chunk.data(), chunk.raw_size(), blob_->base));
  KT_RETURN_IF_ERROR(blob_->writer.Append(chunk.offset(), raw));
  if (!chunk.last()) return Status::Ok();
  KT_RETURN_IF_ERROR(blob_->writer.Finish());
  blob_.reset();
  pending_.erase(it);
  wire::Envelope reply;
  reply.mutable_blob_stored()->set_hash(chunk.hash());
  session_.Send(reply);
  return Status::Ok();
}

// The content of the blob a chunk names as its base: one of the pushed bundle's own blobs,
// stored already (so never one still pending), and small enough to hold in memory.
Result<std::string> PushReceiver::DeltaBase(const std::string& base_hash) {
  if (base_hash.empty()) return std::string();
  auto it = push_blobs_.find(base_hash);
  if (it == push_blobs_.end() || pending_.count(base_hash) || !context_.store.HasBlob(base_hash)) {
    return ProtocolError("blob chunk's base " + base_hash +
                         " is not a stored blob of the bundle being pushed");
  }
  if (it->second > kMaxDeltaBaseBytes) {
    return ProtocolError("blob chunk's base " + base_hash + " is over the base maximum");
  }
  return ReadFile(context_.store.BlobPath(base_hash));
}

Status PushReceiver::OnCommit(const wire::PushCommit& commit) {
  KT_ASSIGN_OR_RETURN(std::string tree, context_.store.Materialize(commit.bundle_id()));
  (void)tree;
  if (!pushing_.empty()) context_.pins.Drop(pushing_);
  pushing_.clear();
  wire::Envelope reply;
  reply.mutable_push_done()->set_bundle_id(commit.bundle_id());
  session_.Send(reply);
  return Status::Ok();
}

}  // namespace ktune::agent
