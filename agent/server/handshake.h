// The start of a session: the host's Hello (protocol version), then, when the agent has a token,
// the challenge and both proofs (protocol/session_crypto.h), after which the session is sealed
// if the agent seals; then the HelloReply with the agent's capabilities (agent/server/sysinfo.h).
// A wrong proof is logged and refused after a delay (guessing costs a second per try), and the
// session reads nothing more.
#pragma once

#include <boost/asio/steady_timer.hpp>

#include <string>

#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

class Session;
struct ServerContext;

class Handshake {
 public:
  Handshake(Session& session, ServerContext& context);

  // Whether a message of kind `body` may come now: Hello first, then (with a token) the proof.
  Status Admits(wire::Envelope::BodyCase body) const;
  Status OnHello(const wire::Hello& hello);
  Status OnAuthResponse(const wire::AuthResponse& response);

  // The host failed the token's proof: the session reads nothing more.
  bool failed() const { return failed_; }

 private:
  void SendHelloReply();

  Session& session_;
  ServerContext& context_;
  // Hello, then (with a token) the proof, then requests.
  enum class Stage { kHello, kAuth, kReady };
  Stage stage_ = Stage::kHello;
  std::string host_nonce_, agent_nonce_;
  bool failed_ = false;
  boost::asio::steady_timer delay_;
};

}  // namespace ktune::agent
