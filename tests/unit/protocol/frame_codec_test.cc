// protocol/frame_codec.h: frames on the wire (the sealed ones: session_crypto_test.cc) and blob
// chunks.
#include <doctest/doctest.h>

#include "protocol/frame_codec.h"
#include "tests/unit/protocol/hello_fixture.h"

namespace ktune {
namespace {

using fixture::Hello;

TEST_CASE("frames decode back to their messages, however the bytes arrive") {
  FrameCodec enc;
  std::string stream = enc.Encode(Hello(1)).value() + enc.Encode(Hello(2)).value();
  FrameCodec dec;
  std::vector<uint32_t> seen;
  for (char c : stream) {  // one byte at a time
    dec.Feed(std::string_view(&c, 1));
    auto next = dec.Next();
    REQUIRE(next.ok());
    if (next->has_value()) seen.push_back((*next)->hello().protocol_version());
  }
  CHECK(seen == std::vector<uint32_t>{1, 2});
  CHECK(dec.buffered_bytes() == 0);
}

TEST_CASE("the length prefix is 4 bytes, big-endian") {
  wire::Envelope empty;
  const std::string frame = FrameCodec().Encode(empty).value();
  CHECK(frame == std::string(4, '\0'));
  const std::string hello = FrameCodec().Encode(Hello(1)).value();
  CHECK(static_cast<size_t>(static_cast<unsigned char>(hello[3])) == hello.size() - 4);
}

TEST_CASE("frames over the maximum are refused on both sides") {
  FrameCodec small(16);
  wire::Envelope big;
  big.mutable_error()->set_message(std::string(100, 'x'));
  CHECK(small.Encode(big).status().code() == ErrorCode::kProtocol);
  FrameCodec dec(16);
  dec.Feed(std::string("\x00\x00\x10\x00", 4));  // announces 4096 bytes
  CHECK(dec.Next().status().code() == ErrorCode::kProtocol);
  FrameCodec huge;
  huge.Feed(std::string("\xff\xff\xff\xff", 4));
  CHECK_FALSE(huge.Next().ok());
}

TEST_CASE("a frame that is not a message is a protocol error") {
  FrameCodec dec;
  dec.Feed(std::string("\x00\x00\x00\x03\xff\xff\xff", 7));
  CHECK(dec.Next().status().code() == ErrorCode::kProtocol);
}

TEST_CASE("blob chunks are zstd frames of exactly the announced size") {
  const std::string raw(100000, 'k');
  const std::string z = CompressChunk(raw);
  CHECK(z.size() < raw.size() / 10);
  CHECK(DecompressChunk(z, raw.size()).value() == raw);
  CHECK(DecompressChunk(CompressChunk(""), 0).value().empty());
  CHECK_FALSE(DecompressChunk(z, raw.size() - 1).ok());
  CHECK_FALSE(DecompressChunk("not zstd", 8).ok());
  // A "bomb": a small frame that would expand past the chunk maximum.
  const std::string bomb = CompressChunk(std::string(kBlobChunkBytes + 1, '\0'));
  CHECK_FALSE(DecompressChunk(bomb, kBlobChunkBytes + 1).ok());
}

TEST_CASE("a chunk compressed against a base costs only what differs, and needs that base") {
  // A base of bytes zstd cannot shrink alone, and a chunk that is the base with a few changes.
  std::string base(200000, '\0');
  uint32_t x = 1;
  for (char& c : base) c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
  std::string raw = base;
  raw.replace(5000, 11, "a new value");
  raw += "and a tail";
  const std::string alone = CompressChunk(raw);
  const std::string delta = CompressChunk(raw, base);
  CHECK(alone.size() > raw.size() * 9 / 10);
  CHECK(delta.size() < 200);
  CHECK(DecompressChunk(delta, raw.size(), base).value() == raw);
  // Without its base, or against another, the frame is refused as a protocol error.
  CHECK(DecompressChunk(delta, raw.size()).status().code() == ErrorCode::kProtocol);
  std::string other = base;
  other[5] ^= 1;
  auto wrong = DecompressChunk(delta, raw.size(), other);
  CHECK((!wrong.ok() || *wrong != raw));
  // A frame made without a base reads the same with one.
  CHECK(DecompressChunk(alone, raw.size(), base).value() == raw);
}

}  // namespace
}  // namespace ktune
