#include "agent/server/session.h"

#include <unistd.h>

#include <boost/asio.hpp>

#include "agent/server/log.h"
#include "agent/server/server_context.h"
#include "agent/server/tune_system.h"
#include "protocol/convert.h"

namespace ktune::agent {

namespace asio = boost::asio;
using asio::ip::tcp;

Session::Session(tcp::socket socket, ServerContext& context)
    : context_(context),
      socket_(std::move(socket)),
      handshake_(*this, context),
      push_(*this, context),
      runs_(*this, context) {
  boost::system::error_code ec;
  auto remote = socket_.remote_endpoint(ec);
  peer_ = ec ? "?" : remote.address().to_string() + ":" + std::to_string(remote.port());
}

void Session::Start() {
  Log(LogLevel::kInfo, "connection from " + peer_);
  ReadMore();
}

void Session::ReadMore() {
  auto self = shared_from_this();
  socket_.async_read_some(asio::buffer(read_buf_),
                          [this, self](boost::system::error_code ec, size_t n) {
                            if (ec) {
                              Log(LogLevel::kInfo, "connection from " + peer_ + " closed");
                              return;
                            }
                            codec_.Feed(std::string_view(read_buf_.data(), n));
                            if (DrainFrames()) ReadMore();
                          });
}

bool Session::DrainFrames() {
  for (;;) {
    auto next = codec_.Next();
    if (!next.ok()) {
      Log(LogLevel::kWarn, peer_ + ": " + next.status().message());
      SendThenClose(next.status());
      return false;
    }
    if (!next->has_value()) return true;
    Status s = Handle(**next);
    if (handshake_.failed()) return false;  // read nothing more: the refusal follows a delay
    if (!s.ok()) {
      if (s.code() == ErrorCode::kProtocol || s.code() == ErrorCode::kVersionMismatch) {
        Log(LogLevel::kWarn, peer_ + ": " + s.message());
        SendThenClose(s);
        return false;
      }
      Send(ErrorMessage(s));
    }
  }
}

Status Session::Handle(const wire::Envelope& msg) {
  KT_RETURN_IF_ERROR(handshake_.Admits(msg.body_case()));
  try {
    switch (msg.body_case()) {
      case wire::Envelope::kHello:
        return handshake_.OnHello(msg.hello());
      case wire::Envelope::kAuthResponse:
        return handshake_.OnAuthResponse(msg.auth_response());
      case wire::Envelope::kPushManifest:
        return push_.OnManifest(msg.push_manifest());
      case wire::Envelope::kBlobChunk:
        return push_.OnChunk(msg.blob_chunk());
      case wire::Envelope::kPushCommit:
        return push_.OnCommit(msg.push_commit());
      case wire::Envelope::kRunRequest:
        return runs_.OnRun(msg.run_request());
      case wire::Envelope::kFetchRun:
        return runs_.OnFetch(msg.fetch_run());
      case wire::Envelope::kTuneSystem:
        return OnTuneSystem(msg.tune_system());
      default:
        return ProtocolError("unexpected message from host");
    }
  } catch (const std::exception& e) {
    return InternalError(e.what());
  }
}

Status Session::OnTuneSystem(const wire::TuneSystem& tune) {
  KT_ASSIGN_OR_RETURN(const std::vector<std::string> changes,
                      TuneSystem(context_.system_root, context_.store.layout().tuned_system(),
                                 tune.reset(), ::geteuid() == 0));
  wire::Envelope reply;
  for (const std::string& c : changes) {
    Log(LogLevel::kInfo, "tune-system" + std::string(tune.reset() ? " --reset" : "") + ": " + c);
    reply.mutable_system_tuned()->add_changes(c);
  }
  Send(reply);
  return Status::Ok();
}

void Session::Send(const wire::Envelope& msg) {
  auto frame = codec_.Encode(msg);
  if (!frame.ok()) {
    Log(LogLevel::kError, "cannot send: " + frame.status().message());
    return;
  }
  outbox_.push_back(std::move(frame).value());
  if (outbox_.size() == 1) WriteNext();
}

void Session::SendThenClose(const Status& s) {
  close_after_send_ = true;
  Send(ErrorMessage(s));
}

void Session::StartSealing(const SessionKeys& keys) {
  codec_.StartSealing(keys.agent_to_host, keys.host_to_agent);
}

void Session::WriteNext() {
  auto self = shared_from_this();
  asio::async_write(socket_, asio::buffer(outbox_.front()),
                    [this, self](boost::system::error_code ec, size_t) {
                      if (ec) {
                        outbox_.clear();
                        return;
                      }
                      outbox_.pop_front();
                      if (!outbox_.empty()) {
                        WriteNext();
                      } else if (close_after_send_) {
                        boost::system::error_code ignored;
                        socket_.shutdown(tcp::socket::shutdown_both, ignored);
                        socket_.close(ignored);
                      }
                    });
}

}  // namespace ktune::agent
