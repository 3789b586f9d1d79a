// khost's side of the protocol: a blocking connection to one agentd (Boost.Asio), the Hello
// handshake with its version check and, with an agent that has a token, the authentication, pushing
// a bundle (only the blobs the agent lacks, as zstd chunks) and running a request while rows stream
// back.
#pragma once

#include <boost/asio.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/address.h"
#include "common/manifest.h"
#include "common/status.h"
#include "protocol/frame_codec.h"
#include "protocol/ktune.pb.h"
#include "protocol/session_crypto.h"

namespace ktune {

class AgentConnection {
 public:
  // Connects (giving up after `timeout`) and says Hello; fails on a protocol version mismatch.
  // An agent that asks for the token gets the proof that this host holds `token` and must prove
  // the same; off loopback an agent that does not ask, or does not seal, is refused.
  static Result<std::unique_ptr<AgentConnection>> Connect(
      const HostPort& address, const std::optional<Token>& token = std::nullopt,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  const HostPort& address() const { return address_; }
  const wire::HelloReply& hello() const { return hello_; }

  Status Send(const wire::Envelope& msg);
  // The next message; an Error message from the agent comes back as its Status.
  Result<wire::Envelope> Receive();

 private:
  AgentConnection() : socket_(io_) {}
  Status Authenticate(const wire::AuthChallenge& challenge, const std::string& host_nonce,
                      const std::optional<Token>& token, bool loopback);
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  HostPort address_;
  FrameCodec codec_;
  wire::HelloReply hello_;
};

struct PushStats {
  std::string bundle_id;
  size_t files = 0;
  size_t blobs_sent = 0;
  uint64_t raw_bytes_sent = 0;
  uint64_t wire_bytes_sent = 0;  // compressed chunk payloads
};

// Pushes the files of `manifest`, read from under `root`. Content the agent already holds is
// never sent again.
Result<PushStats> PushBundle(AgentConnection& conn, const Manifest& manifest,
                             const std::string& root);

// What the agent sends for a run, in order: RunQueued while other runs measure, RunAccepted (its
// plan), rows each followed by its SampleProfile when the run samples, RunDone.
struct RunStream {
  std::function<void(const wire::RunQueued&)> on_queued;
  std::function<Status(const wire::RunAccepted&)> on_accepted;
  std::function<Status(const wire::RepetitionResult&)> on_row;
  std::function<Status(const wire::SampleProfile&)> on_profile;
};
// Sends `ask` (a RunRequest, or a FetchRun of an earlier run) and hands what comes back to
// `stream` until RunDone, which it returns; a RunDone that counts other rows than arrived is an
// error. Any handler may be empty.
Result<wire::RunDone> StreamRun(AgentConnection& conn, const wire::Envelope& ask,
                                const RunStream& stream);

// StreamRun of `request`, for callers that only want its rows.
Status RunOnAgent(AgentConnection& conn, const wire::RunRequest& request,
                  const std::function<Status(const wire::RepetitionResult&)>& on_row);

}  // namespace ktune
