#include "protocol/frame_codec.h"

#include <zstd.h>

#include <memory>

namespace ktune {

void FrameCodec::StartSealing(const FrameSealer::Key& outgoing, const FrameSealer::Key& incoming) {
  out_.emplace(outgoing);
  in_.emplace(incoming);
}

Result<std::string> FrameCodec::Encode(const wire::Envelope& msg) {
  std::string payload;
  if (!msg.SerializeToString(&payload)) return InternalError("cannot serialize message");
  if (out_) payload = out_->Seal(payload);
  const size_t size = payload.size();
  if (size > max_) {
    return ProtocolError("message of " + std::to_string(size) +
                         " bytes exceeds the frame maximum of " + std::to_string(max_));
  }
  std::string out(kFrameHeaderBytes, '\0');
  out[0] = static_cast<char>((size >> 24) & 0xff);
  out[1] = static_cast<char>((size >> 16) & 0xff);
  out[2] = static_cast<char>((size >> 8) & 0xff);
  out[3] = static_cast<char>(size & 0xff);
  return out + payload;
}

Result<std::optional<wire::Envelope>> FrameCodec::Next() {
  const size_t avail = buffer_.size() - consumed_;
  if (avail < kFrameHeaderBytes) return std::optional<wire::Envelope>();
  const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + consumed_);
  const size_t size = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
  if (size > max_) {
    return ProtocolError("peer announced a frame of " + std::to_string(size) +
                         " bytes, over the maximum of " + std::to_string(max_));
  }
  if (avail < kFrameHeaderBytes + size) return std::optional<wire::Envelope>();
  std::string_view payload(buffer_.data() + consumed_ + kFrameHeaderBytes, size);
  std::string opened;
  if (in_) {
    KT_ASSIGN_OR_RETURN(opened, in_->Open(payload));
    payload = opened;
  }
  wire::Envelope msg;
  if (!msg.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return ProtocolError("malformed message of " + std::to_string(size) + " bytes");
  }
  consumed_ += kFrameHeaderBytes + size;
  // Drop consumed bytes once they dominate, so the buffer does not grow without bound.
  if (consumed_ == buffer_.size() || (consumed_ > (1u << 16) && consumed_ * 2 > buffer_.size())) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  return std::optional<wire::Envelope>(std::move(msg));
}

size_t WholeFramesBytes(std::string_view stream) {
  size_t at = 0;
  while (stream.size() - at >= kFrameHeaderBytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(stream.data() + at);
    const size_t size = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
    if (stream.size() - at - kFrameHeaderBytes < size) break;
    at += kFrameHeaderBytes + size;
  }
  return at;
}

namespace {

constexpr int kChunkLevel = 3;

struct CCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// The window a frame against `base_bytes` of prefix needs, as zstd's log2: the whole base and
// the chunk, so a match may reach the base's first byte from the chunk's last.
int DeltaWindowLog(size_t base_bytes) {
  int log = 10;  // zstd's smallest window
  while ((size_t{1} << log) < base_bytes + kBlobChunkBytes) ++log;
  return log;
}

}  // namespace

std::string CompressChunk(std::string_view raw, std::string_view base) {
  std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx(ZSTD_createCCtx());
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kChunkLevel);
  if (!base.empty()) {
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_windowLog, DeltaWindowLog(base.size()));
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_enableLongDistanceMatching, 1);
    ZSTD_CCtx_refPrefix(cctx.get(), base.data(), base.size());
  }
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
  out.resize(n);  // cannot fail with a ZSTD_compressBound-sized output and valid parameters
  return out;
}

Result<std::string> DecompressChunk(std::string_view frame, uint64_t expected_raw_bytes,
                                    std::string_view base) {
  if (expected_raw_bytes > kBlobChunkBytes) {
    return ProtocolError("blob chunk announces " + std::to_string(expected_raw_bytes) +
                         " raw bytes, over the chunk maximum");
  }
  const unsigned long long content = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
      content != expected_raw_bytes) {
    return ProtocolError("blob chunk is not a zstd frame of the announced size");
  }
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
  if (!base.empty()) ZSTD_DCtx_refPrefix(dctx.get(), base.data(), base.size());
  std::string out(expected_raw_bytes, '\0');
  const size_t n =
      ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != expected_raw_bytes) {
    return ProtocolError(std::string("blob chunk does not decompress: ") +
                         (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size"));
  }
  return out;
}

}  // namespace ktune
