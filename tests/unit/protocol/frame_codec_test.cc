#include <doctest/doctest.h>

#include "protocol/frame_codec.h"

namespace ktune {
namespace {

wire::Envelope Hello(uint32_t version) {
  wire::Envelope env;
  env.mutable_hello()->set_protocol_version(version);
  env.mutable_hello()->set_client_version("test");
  return env;
}

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

TEST_CASE("sealed frames open only in order, unaltered, under their key") {
  const Token token = Token::FromText(std::string(64, 'a')).value();
  const SessionKeys keys = DeriveSessionKeys(token, std::string(32, 'h'), std::string(32, 'g'));
  FrameCodec host, agent;
  host.StartSealing(keys.host_to_agent, keys.agent_to_host);
  agent.StartSealing(keys.agent_to_host, keys.host_to_agent);
  const std::string first = host.Encode(Hello(1)).value();
  const std::string second = host.Encode(Hello(2)).value();
  // The payload is not the plain message, and is longer by the tag.
  CHECK(first.size() == FrameCodec().Encode(Hello(1)).value().size() + FrameSealer::kOverheadBytes);
  CHECK(first.find("test") == std::string::npos);
  agent.Feed(first + second);
  CHECK(agent.Next().value()->hello().protocol_version() == 1);
  CHECK(agent.Next().value()->hello().protocol_version() == 2);
  // Replayed, altered, out of order, or plain: refused.
  FrameCodec replay;
  replay.StartSealing(keys.agent_to_host, keys.host_to_agent);
  replay.Feed(second);
  CHECK(replay.Next().status().code() == ErrorCode::kProtocol);  // frame 2 where 1 is due
  std::string altered = first;
  altered[10] ^= 1;
  FrameCodec victim;
  victim.StartSealing(keys.agent_to_host, keys.host_to_agent);
  victim.Feed(altered);
  CHECK(victim.Next().status().message().find("failed its check") != std::string::npos);
  FrameCodec plain_peer;
  plain_peer.StartSealing(keys.agent_to_host, keys.host_to_agent);
  plain_peer.Feed(FrameCodec().Encode(Hello(1)).value());
  CHECK_FALSE(plain_peer.Next().ok());
  // Each direction has its own key: a frame sealed host -> agent does not open as agent -> host.
  FrameCodec wrong_way;
  wrong_way.StartSealing(keys.agent_to_host, keys.agent_to_host);
  FrameCodec host2;
  host2.StartSealing(keys.host_to_agent, keys.agent_to_host);
  wrong_way.Feed(host2.Encode(Hello(4)).value());
  CHECK_FALSE(wrong_way.Next().ok());
}

TEST_CASE("the token's proofs depend on the role, both nonces and the sealing") {
  const Token token = Token::FromText(std::string(64, 'a') + "\n").value();
  const std::string h(32, 'h'), g(32, 'g');
  const std::string mac = AuthMac(token, "host", h, g, true);
  CHECK(mac.size() == kMacBytes);
  CHECK(MacMatches(mac, AuthMac(token, "host", h, g, true)));
  CHECK_FALSE(MacMatches(mac, AuthMac(token, "agent", h, g, true)));  // no reflection
  CHECK_FALSE(MacMatches(mac, AuthMac(token, "host", g, h, true)));
  CHECK_FALSE(MacMatches(mac, AuthMac(token, "host", h, g, false)));  // no downgrade
  const Token other = Token::FromText(std::string(64, 'b')).value();
  CHECK_FALSE(MacMatches(mac, AuthMac(other, "host", h, g, true)));
  CHECK_FALSE(MacMatches(mac.substr(1), mac));
  CHECK(Token::FromText("abc").status().message() == "a token is 64 hex digits (32 random bytes)");
  CHECK_FALSE(Token::FromText(std::string(64, 'z')).ok());
  const std::string fresh = Token::NewText();
  CHECK(fresh.size() == 65);
  CHECK(Token::FromText(fresh).ok());
  CHECK(fresh != Token::NewText());
  CHECK(NewNonce().size() == kNonceBytes);
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
