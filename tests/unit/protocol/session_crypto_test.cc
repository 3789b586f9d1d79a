// protocol/session_crypto.h: the token, its challenge-response proofs, and the frames sealed with
// the session's keys.
#include <doctest/doctest.h>

#include "protocol/frame_codec.h"
#include "protocol/session_crypto.h"
#include "tests/unit/protocol/hello_fixture.h"

namespace ktune {
namespace {

using fixture::Hello;

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

}  // namespace
}  // namespace ktune
