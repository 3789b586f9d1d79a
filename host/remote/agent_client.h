// khost's side of the protocol: a blocking connection to one agentd (Boost.Asio), the Hello
// handshake with its version check and, with an agent that has a token, the authentication, pushing
// a bundle (only the blobs the agent lacks, as zstd chunks, each compressed against a like file the
// agent holds when there is one) and running a request while rows stream
// back.
#pragma once

#include <boost/asio.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/address.h"
#include "common/manifest.h"
#include "common/status.h"
#include "protocol/frame_codec.h"
#include "protocol/ktune.pb.h"
#include "protocol/session_crypto.h"

namespace ktune::host {

class AgentConnection {
 public:
  // Connects and says Hello, giving up when either takes longer than `timeout` (an ssh forward
  // accepts at once, and a stopped agentd accepts but never answers); fails on a protocol
  // version mismatch.
  // An agent that asks for the token gets the proof that this host holds `token` and must prove
  // the same; off loopback an agent that does not ask, or does not seal, is refused.
  static Result<std::unique_ptr<AgentConnection>> Connect(
      const HostPort& address, const std::optional<Token>& token = std::nullopt,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The same through a unix socket of this machine (an ssh forward's local end, which only
  // this user may open): no token, as on loopback.
  static Result<std::unique_ptr<AgentConnection>> ConnectLocal(
      const std::string& socket_path, std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // The same over a unix stream socket already connected to an agent, which the connection takes
  // (one end of a socketpair: tests/fuzz/host_receive.cc's agent, in-process, with no port);
  // no token, as on loopback. `where` names it in messages.
  static Result<std::unique_ptr<AgentConnection>> Adopt(
      int fd, const std::string& where,
      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // "HOST:PORT", or the unix socket's path.
  const std::string& where() const { return where_; }
  const wire::HelloReply& hello() const { return hello_; }

  Status Send(const wire::Envelope& msg);
  // The next message; an Error message from the agent comes back as its Status.
  Result<wire::Envelope> Receive();

 private:
  AgentConnection() : socket_(io_) {}
  // The first of `targets` that accepts within `timeout`.
  Status ConnectTo(const std::vector<boost::asio::generic::stream_protocol::endpoint>& targets,
                   std::chrono::milliseconds timeout);
  // Hello, and the token's exchange when the agent asks for it, within `timeout`.
  Status Handshake(const std::optional<Token>& token, bool loopback,
                   std::chrono::milliseconds timeout);
  Status Authenticate(const wire::AuthChallenge& challenge, const std::string& host_nonce,
                      const std::optional<Token>& token, bool loopback);
  boost::asio::io_context io_;
  boost::asio::generic::stream_protocol::socket socket_;
  std::string where_;
  FrameCodec codec_;
  wire::HelloReply hello_;
  // While set (the handshake), Receive fails when nothing whole arrived by then.
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

struct PushStats {
  std::string bundle_id;
  size_t files = 0;
  size_t blobs_sent = 0;
  size_t deltas_sent = 0;  // of blobs_sent, those compressed against a base
  uint64_t raw_bytes_sent = 0;
  uint64_t wire_bytes_sent = 0;  // compressed chunk payloads
};

// Files smaller than this are never sent as deltas, nor used as bases: a base costs the agent a
// read of it, and a small file has little to share.
constexpr uint64_t kMinDeltaBytes = 4096;

// The base each blob of `missing` (the agent's PushNeed, in the order the blobs are sent) is best
// compressed against: a file of `manifest` with the same extension (".elf", ".txt", "" for none)
// that the agent holds already or receives earlier in the push, the one nearest in size (the
// first in the manifest on a tie), at least kMinDeltaBytes and at most kMaxDeltaBaseBytes, as is
// the blob itself. Blobs without such a file have no entry. Variants of one kernel share most of
// their bytes (the C library and main in every static ELF), so each ELF after the first costs
// the difference only.
std::map<std::string, std::string> ChooseDeltaBases(const Manifest& manifest,
                                                    const std::vector<std::string>& missing);

// Pushes the files of `manifest`, read beneath `root` (host/util/user_paths.h: never through a
// link that leads out of it). Content the agent already holds is
// never sent again; the rest goes against the bases ChooseDeltaBases picks.
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

}  // namespace ktune::host
