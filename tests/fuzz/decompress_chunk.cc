// Fuzzes DecompressChunk, which turns a BlobChunk's zstd frame from a host into raw blob bytes
// on the agent: the frame and the raw size it announces are both the peer's.
//
// Input: 3 bytes of announced raw size (big-endian; up to 16 MiB, so announcements over
// kBlobChunkBytes occur), 1 byte of base size in KiB (0: no base; else that much of
// DeltaFuzzBase, the blob the frame is decompressed against), then the zstd frame.
//
// Asserts, beyond no crash and no sanitizer report (a zstd bomb would show as an allocation
// beyond the limit or a buffer overrun):
// - a chunk is accepted only when it holds exactly the bytes announced, at most kBlobChunkBytes;
// - an accepted chunk's bytes, compressed again against the same base, decompress to the same
//   bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/frame_codec.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  if (size < 4) return 0;
  const uint64_t announced_bytes = (uint64_t{data[0]} << 16) | (uint64_t{data[1]} << 8) | data[2];
  const std::string base = DeltaFuzzBase(data[3]);
  const std::string_view frame(reinterpret_cast<const char*>(data) + 4, size - 4);
  auto raw = DecompressChunk(frame, announced_bytes, base);
  if (!raw.ok()) {
    FUZZ_CHECK(raw.status().code() == ErrorCode::kProtocol);
    return 0;
  }
  FUZZ_CHECK(announced_bytes <= kBlobChunkBytes);
  FUZZ_CHECK(raw->size() == announced_bytes);
  auto again = DecompressChunk(CompressChunk(*raw, base), announced_bytes, base);
  FUZZ_CHECK(again.ok() && *again == *raw);
  return 0;
}
