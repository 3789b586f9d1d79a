// The one codec for ktune's wire: frames of a 4-byte big-endian length followed by one serialized
// wire::Envelope, never longer than a hard maximum; in a sealed session the Envelope is sealed
// (protocol/session_crypto.h) and the length counts the sealed bytes. Sockets move bytes; only
// this class turns them into messages and back. Blob payloads are zstd frames
// (CompressChunk/DecompressChunk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "protocol/ktune.pb.h"
#include "protocol/session_crypto.h"

namespace ktune {

// Bumped whenever a message changes meaning; peers with different versions refuse to talk.
constexpr uint32_t kProtocolVersion = 6;
constexpr size_t kFrameHeaderBytes = 4;
constexpr size_t kMaxFrameBytes = 8u << 20;
// Raw bytes per BlobChunk; its zstd frame stays far below kMaxFrameBytes.
constexpr size_t kBlobChunkBytes = 1u << 20;
// The largest blob a chunk may be compressed against (BlobChunk.base_hash): the agent holds the
// whole base in memory while the blob arrives.
constexpr size_t kMaxDeltaBaseBytes = 32u << 20;

class FrameCodec {
 public:
  explicit FrameCodec(size_t max_frame_bytes = kMaxFrameBytes) : max_(max_frame_bytes) {}

  // The frame for `msg` (sealed once StartSealing was called), or an error when it would exceed
  // the maximum.
  Result<std::string> Encode(const wire::Envelope& msg);

  // From the next frame on, frames this side encodes are sealed with `outgoing` and frames it
  // decodes must open with `incoming`: both sides switch after the authentication exchange.
  void StartSealing(const FrameSealer::Key& outgoing, const FrameSealer::Key& incoming);
  bool sealing() const { return out_.has_value(); }

  // Appends received bytes.
  void Feed(std::string_view bytes) { buffer_.append(bytes); }

  // The next complete message, std::nullopt when more bytes are needed, or an error for a frame
  // that announces more than the maximum, does not open (sealed sessions) or does not parse.
  // After an error the stream is unusable: framing is lost.
  Result<std::optional<wire::Envelope>> Next();

  size_t buffered_bytes() const { return buffer_.size() - consumed_; }

 private:
  size_t max_;
  std::string buffer_;
  size_t consumed_ = 0;
  std::optional<FrameSealer> out_, in_;
};

// How many leading bytes of `stream` are whole frames (a file of frames whose writer died
// mid-frame ends in a partial one).
size_t WholeFramesBytes(std::string_view stream);

// One zstd frame for `raw`. With a `base` (at most kMaxDeltaBaseBytes), the frame is compressed
// with all of it as zstd's prefix, the way `zstd --patch-from` does: what `raw` shares with the
// base costs a few bytes, and only the same base decompresses it.
std::string CompressChunk(std::string_view raw, std::string_view base = {});
// Decompresses one zstd frame that must hold exactly `expected_raw_bytes` (at most
// kBlobChunkBytes), with the `base` it was compressed against; anything else is a protocol error
// (a zstd bomb included).
Result<std::string> DecompressChunk(std::string_view frame, uint64_t expected_raw_bytes,
                                    std::string_view base = {});

}  // namespace ktune
