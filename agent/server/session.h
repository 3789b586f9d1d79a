// One connection to agentd: the socket, the frames both ways (protocol/frame_codec.h) and the
// dispatch of each message a host sends to the part that handles it:
//   Hello, AuthResponse                 Handshake     (agent/server/handshake.h)
//   PushManifest, BlobChunk, PushCommit PushReceiver  (agent/server/push_receiver.h)
//   RunRequest, FetchRun                RunHandler    (agent/server/run_handler.h)
//   TuneSystem                          TuneSystem    (agent/server/tune_system.h), as root
// A protocol error (or a version mismatch) is answered and closes the connection; any other
// error is answered and the session goes on.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <array>
#include <deque>
#include <memory>
#include <string>

#include "agent/server/handshake.h"
#include "agent/server/push_receiver.h"
#include "agent/server/run_handler.h"
#include "common/status.h"
#include "protocol/frame_codec.h"
#include "protocol/ktune.pb.h"
#include "protocol/session_crypto.h"

namespace ktune::agent {

struct ServerContext;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(boost::asio::ip::tcp::socket socket, ServerContext& context);

  void Start();

  // For the session's parts:
  ServerContext& context() { return context_; }
  const std::string& peer() const { return peer_; }
  RunHandler& run_handler() { return runs_; }
  void Send(const wire::Envelope& msg);
  // Sends the error, then closes the connection.
  void SendThenClose(const Status& s);
  // Seals every frame from now on both ways (after the token's proof went out in the clear).
  void StartSealing(const SessionKeys& keys);

 private:
  void ReadMore();
  // Handles every complete frame; false when the connection must close.
  bool DrainFrames();
  Status Handle(const wire::Envelope& msg);
  Status OnTuneSystem(const wire::TuneSystem& tune);
  void WriteNext();

  ServerContext& context_;
  boost::asio::ip::tcp::socket socket_;
  std::string peer_;
  FrameCodec codec_;
  std::array<char, 1 << 16> read_buf_;
  std::deque<std::string> outbox_;
  bool close_after_send_ = false;
  Handshake handshake_;
  PushReceiver push_;
  RunHandler runs_;
};

}  // namespace ktune::agent
