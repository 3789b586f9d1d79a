#include "agent/server/handshake.h"

#include "agent/server/log.h"
#include "agent/server/server_context.h"
#include "agent/server/session.h"
#include "agent/server/sysinfo.h"
#include "common/version.h"
#include "protocol/session_crypto.h"

namespace ktune::agent {

Handshake::Handshake(Session& session, ServerContext& context)
    : session_(session), context_(context), delay_(context.io) {}

Status Handshake::Admits(wire::Envelope::BodyCase body) const {
  if (stage_ == Stage::kHello && body != wire::Envelope::kHello) {
    return ProtocolError("the first message must be Hello");
  }
  if (stage_ == Stage::kAuth && body != wire::Envelope::kAuthResponse) {
    return ProtocolError("this agent needs the token's proof (AuthResponse) first");
  }
  return Status::Ok();
}

Status Handshake::OnHello(const wire::Hello& hello) {
  if (stage_ != Stage::kHello) return ProtocolError("a second Hello");
  if (hello.protocol_version() != kProtocolVersion) {
    return Status(ErrorCode::kVersionMismatch,
                  "khost speaks protocol " + std::to_string(hello.protocol_version()) +
                      ", agentd " KTUNE_VERSION " speaks protocol " +
                      std::to_string(kProtocolVersion) + "; use matching versions");
  }
  if (!context_.token) {
    SendHelloReply();
    return Status::Ok();
  }
  if (hello.host_nonce().size() != kNonceBytes) {
    return ProtocolError("Hello without a nonce: this agent needs a token (khost --token-file)");
  }
  host_nonce_ = hello.host_nonce();
  agent_nonce_ = NewNonce();
  stage_ = Stage::kAuth;
  wire::Envelope challenge;
  challenge.mutable_auth_challenge()->set_agent_nonce(agent_nonce_);
  challenge.mutable_auth_challenge()->set_sealed(context_.seal);
  session_.Send(challenge);
  return Status::Ok();
}

Status Handshake::OnAuthResponse(const wire::AuthResponse& response) {
  if (stage_ != Stage::kAuth) return ProtocolError("unexpected AuthResponse");
  const Token& token = *context_.token;
  const bool seal = context_.seal;
  if (!MacMatches(response.mac(), AuthMac(token, "host", host_nonce_, agent_nonce_, seal))) {
    // Logged, and answered only after a delay: guessing costs a second per try.
    Log(LogLevel::kWarn, "authentication failed from " + session_.peer() + ": wrong token");
    failed_ = true;
    auto self = session_.shared_from_this();
    delay_.expires_after(std::chrono::seconds(1));
    delay_.async_wait([self](boost::system::error_code) {
      self->SendThenClose(Unauthenticated("the token does not match: authentication failed"));
    });
    return Status::Ok();
  }
  wire::Envelope proof;
  proof.mutable_auth_proof()->set_mac(AuthMac(token, "agent", host_nonce_, agent_nonce_, seal));
  session_.Send(proof);  // encoded now, in the clear; everything after it is sealed when `seal`
  if (seal) session_.StartSealing(DeriveSessionKeys(token, host_nonce_, agent_nonce_));
  Log(LogLevel::kInfo, session_.peer() + " authenticated" + (seal ? ", session sealed" : ""));
  SendHelloReply();
  return Status::Ok();
}

void Handshake::SendHelloReply() {
  stage_ = Stage::kReady;
  wire::Envelope reply;
  auto* r = reply.mutable_hello_reply();
  r->set_protocol_version(kProtocolVersion);
  r->set_agent_version(KTUNE_VERSION);
  *r->mutable_capabilities() = ProbeCapabilities(context_.cpu, context_.system_root);
  for (const std::string& w : context_.measurer->exec_wrapper()) {
    r->mutable_capabilities()->add_exec_wrapper(w);
  }
  session_.Send(reply);
}

}  // namespace ktune::agent
