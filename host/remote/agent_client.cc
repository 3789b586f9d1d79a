#include "host/remote/agent_client.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/fs.h"
#include "common/hash.h"
#include "common/version.h"
#include "host/util/user_paths.h"
#include "protocol/convert.h"

namespace ktune::host {

namespace asio = boost::asio;
using asio::ip::tcp;

Result<std::unique_ptr<AgentConnection>> AgentConnection::Connect(
    const HostPort& address, const std::optional<Token>& token, std::chrono::milliseconds timeout) {
  std::unique_ptr<AgentConnection> c(new AgentConnection());
  c->where_ = address.ToString();
  boost::system::error_code ec;
  tcp::resolver resolver(c->io_);
  auto endpoints = resolver.resolve(address.host, std::to_string(address.port), ec);
  if (ec) return Unavailable("cannot resolve agent at " + c->where_ + ": " + ec.message());
  // Loopback only when every address the name has is: the one connected to then is too.
  bool loopback = true;
  std::vector<asio::generic::stream_protocol::endpoint> targets;
  for (const auto& e : endpoints) {
    loopback = loopback && e.endpoint().address().is_loopback();
    targets.emplace_back(e.endpoint());
  }
  KT_RETURN_IF_ERROR(c->ConnectTo(targets, timeout));
  c->socket_.set_option(tcp::no_delay(true), ec);
  KT_RETURN_IF_ERROR(c->Handshake(token, loopback, timeout));
  return c;
}

Result<std::unique_ptr<AgentConnection>> AgentConnection::ConnectLocal(
    const std::string& socket_path, std::chrono::milliseconds timeout) {
  std::unique_ptr<AgentConnection> c(new AgentConnection());
  c->where_ = socket_path;
  KT_RETURN_IF_ERROR(c->ConnectTo({asio::generic::stream_protocol::endpoint(
                                      asio::local::stream_protocol::endpoint(socket_path))},
                                  timeout));
  KT_RETURN_IF_ERROR(c->Handshake(std::nullopt, /*loopback=*/true, timeout));
  return c;
}

Result<std::unique_ptr<AgentConnection>> AgentConnection::Adopt(int fd, const std::string& where,
                                                                std::chrono::milliseconds timeout) {
  std::unique_ptr<AgentConnection> c(new AgentConnection());
  c->where_ = where;
  boost::system::error_code ec;
  c->socket_.assign(asio::generic::stream_protocol(AF_UNIX, SOCK_STREAM), fd, ec);
  if (ec) {
    ::close(fd);
    return Unavailable("cannot use the connection to " + where + ": " + ec.message());
  }
  KT_RETURN_IF_ERROR(c->Handshake(std::nullopt, /*loopback=*/true, timeout));
  return c;
}

Status AgentConnection::ConnectTo(
    const std::vector<asio::generic::stream_protocol::endpoint>& targets,
    std::chrono::milliseconds timeout) {
  boost::system::error_code connect_ec = asio::error::timed_out, ec;
  asio::async_connect(socket_, targets,
                      [&](const boost::system::error_code& e, const auto&) { connect_ec = e; });
  io_.run_for(timeout);
  if (!io_.stopped()) {
    socket_.close(ec);
    io_.run();
    return Unavailable("cannot reach agent at " + where_ + ": no answer within " +
                       std::to_string(timeout.count()) + " ms");
  }
  io_.restart();
  if (connect_ec)
    return Unavailable("cannot reach agent at " + where_ + ": " + connect_ec.message());
  return Status::Ok();
}

Status AgentConnection::Handshake(const std::optional<Token>& token, bool loopback,
                                  std::chrono::milliseconds timeout) {
  const std::string where = "agent at " + where_;
  deadline_ = std::chrono::steady_clock::now() + timeout;
  wire::Envelope hello;
  const std::string host_nonce = NewNonce();
  hello.mutable_hello()->set_protocol_version(kProtocolVersion);
  hello.mutable_hello()->set_client_version(KTUNE_VERSION);
  hello.mutable_hello()->set_host_nonce(host_nonce);
  KT_RETURN_IF_ERROR(Send(hello));
  auto reply = Receive();
  if (!reply.ok()) return reply.status().WithContext(where);
  if (reply->has_auth_challenge()) {
    KT_RETURN_IF_ERROR(Authenticate(reply->auth_challenge(), host_nonce, token, loopback));
    reply = Receive();
    if (!reply.ok()) return reply.status().WithContext(where);
  } else if (!loopback) {
    return Unauthenticated(where + " did not ask for a token: off loopback khost talks only to " +
                           "agents that authenticate and seal the session");
  }
  if (!reply->has_hello_reply()) return ProtocolError(where + " did not answer Hello");
  hello_ = reply->hello_reply();
  if (hello_.protocol_version() != kProtocolVersion) {
    return Status(ErrorCode::kVersionMismatch, where + " (agentd " + hello_.agent_version() +
                                                   ") speaks protocol " +
                                                   std::to_string(hello_.protocol_version()) +
                                                   ", khost " KTUNE_VERSION " speaks protocol " +
                                                   std::to_string(kProtocolVersion));
  }
  deadline_.reset();
  return Status::Ok();
}

Status AgentConnection::Authenticate(const wire::AuthChallenge& challenge,
                                     const std::string& host_nonce,
                                     const std::optional<Token>& token, bool loopback) {
  const std::string where = "agent at " + where_;
  if (!token) {
    return Unauthenticated(where + " asks for a token: give its file with --token-file or " +
                           "KTUNE_TOKEN_FILE");
  }
  if (!loopback && !challenge.sealed()) {
    return Unauthenticated(where + " offered an unsealed session off loopback: refused");
  }
  if (challenge.agent_nonce().size() != kNonceBytes) {
    return ProtocolError(where + " sent a challenge without a nonce");
  }
  const bool sealed = challenge.sealed();
  wire::Envelope response;
  response.mutable_auth_response()->set_mac(
      AuthMac(*token, "host", host_nonce, challenge.agent_nonce(), sealed));
  KT_RETURN_IF_ERROR(Send(response));
  auto proof = Receive();
  if (!proof.ok()) return proof.status().WithContext(where);
  if (!proof->has_auth_proof() ||
      !MacMatches(proof->auth_proof().mac(),
                  AuthMac(*token, "agent", host_nonce, challenge.agent_nonce(), sealed))) {
    return Unauthenticated(where + " could not prove it holds the token: not the agent meant?");
  }
  if (sealed) {
    const SessionKeys keys = DeriveSessionKeys(*token, host_nonce, challenge.agent_nonce());
    codec_.StartSealing(keys.host_to_agent, keys.agent_to_host);
  }
  return Status::Ok();
}

Status AgentConnection::Send(const wire::Envelope& msg) {
  KT_ASSIGN_OR_RETURN(std::string frame, codec_.Encode(msg));
  boost::system::error_code ec;
  asio::write(socket_, asio::buffer(frame), ec);
  if (!ec) return Status::Ok();
  // An agent that refuses a message says why before it closes: prefer its words.
  auto said = Receive();
  if (!said.ok() && said.status().code() != ErrorCode::kUnavailable) return said.status();
  return Unavailable("lost the agent at " + where_ + ": " + ec.message());
}

Result<wire::Envelope> AgentConnection::Receive() {
  std::array<char, 1 << 16> buf;
  for (;;) {
    KT_ASSIGN_OR_RETURN(std::optional<wire::Envelope> msg, codec_.Next());
    if (msg) {
      if (msg->has_error()) return StatusFromWire(msg->error());
      return std::move(*msg);
    }
    boost::system::error_code ec;
    size_t n = 0;
    if (!deadline_) {
      n = socket_.read_some(asio::buffer(buf), ec);
    } else {
      socket_.async_read_some(asio::buffer(buf), [&](const boost::system::error_code& e,
                                                     size_t got) { ec = e, n = got; });
      io_.restart();
      io_.run_until(*deadline_);
      if (!io_.stopped()) {
        socket_.cancel(ec);
        io_.run();
        return Unavailable("the agent at " + where_ +
                           " accepted the connection but did not answer the handshake in time");
      }
    }
    if (ec) {
      return Unavailable("lost the agent at " + where_ + ": " +
                         (ec == asio::error::eof ? "connection closed" : ec.message()));
    }
    codec_.Feed(std::string_view(buf.data(), n));
  }
}

namespace {

bool DeltaSized(uint64_t size_bytes) {
  return size_bytes >= kMinDeltaBytes && size_bytes <= kMaxDeltaBaseBytes;
}

// The whole content of a base, which must still be what the manifest says.
Result<std::string> ReadBase(const std::string& root, const std::string& rel,
                             const std::string& hash) {
  KT_ASSIGN_OR_RETURN(std::string content, ReadBeneath(root, rel));
  if (HashBytes(content) != hash) return IoError(root + "/" + rel + " changed while being pushed");
  return content;
}

}  // namespace

std::map<std::string, std::string> ChooseDeltaBases(const Manifest& manifest,
                                                    const std::vector<std::string>& missing) {
  // Blobs the agent holds by the time each missing one is sent: those it did not ask for, and
  // those sent before it.
  std::set<std::string> held;
  for (const FileEntry& f : manifest.files) held.insert(f.hash);
  for (const std::string& hash : missing) held.erase(hash);
  std::map<std::string, const FileEntry*> by_hash;
  for (const FileEntry& f : manifest.files) by_hash.emplace(f.hash, &f);

  std::map<std::string, std::string> bases;
  for (const std::string& hash : missing) {
    auto it = by_hash.find(hash);
    if (it != by_hash.end() && DeltaSized(it->second->size_bytes)) {
      const FileEntry& blob = *it->second;
      const FileEntry* best = nullptr;
      uint64_t best_gap = 0;
      for (const FileEntry& f : manifest.files) {
        if (!held.count(f.hash) || !DeltaSized(f.size_bytes) ||
            std::filesystem::path(f.path).extension() !=
                std::filesystem::path(blob.path).extension()) {
          continue;
        }
        const uint64_t gap = f.size_bytes > blob.size_bytes ? f.size_bytes - blob.size_bytes
                                                            : blob.size_bytes - f.size_bytes;
        if (!best || gap < best_gap) best = &f, best_gap = gap;
      }
      if (best) bases.emplace(hash, best->hash);
    }
    held.insert(hash);
  }
  return bases;
}

namespace {

// Streams one blob as chunks of at most kBlobChunkBytes, each compressed against `base` (empty:
// alone), without waiting for the agent.
Status SendBlob(AgentConnection& conn, const FileEntry& f, const std::string& root,
                const std::string& base_hash, const std::string& base, PushStats* stats) {
  const std::string path = root + "/" + f.path;
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenBeneath(root, f.path));
  std::string raw(kBlobChunkBytes, '\0');
  uint64_t offset = 0;
  do {
    ssize_t n = ::pread(fd.get(), raw.data(), raw.size(), static_cast<off_t>(offset));
    if (n < 0) return ErrnoError("read " + path, errno);
    const std::string_view piece(raw.data(), static_cast<size_t>(n));
    if (n == 0 && offset < f.size_bytes) return IoError(path + " shrank while being pushed");
    wire::Envelope chunk;
    auto* c = chunk.mutable_blob_chunk();
    c->set_hash(f.hash);
    c->set_offset(offset);
    c->set_raw_size(piece.size());
    c->set_data(CompressChunk(piece, base));
    c->set_base_hash(base_hash);
    offset += piece.size();
    c->set_last(offset >= f.size_bytes);
    stats->raw_bytes_sent += piece.size();
    stats->wire_bytes_sent += c->data().size();
    KT_RETURN_IF_ERROR(conn.Send(chunk));
  } while (offset < f.size_bytes);
  ++stats->blobs_sent;
  return Status::Ok();
}

// Sends the blobs the agent lacks, back to back (each after the first of its kind as a delta
// against a like file), then reads one acknowledgement per blob.
Status SendMissingBlobs(AgentConnection& conn, const Manifest& manifest, const std::string& root,
                        const std::vector<std::string>& missing, PushStats* stats) {
  std::map<std::string, const FileEntry*> by_hash;
  for (const FileEntry& f : manifest.files) by_hash.emplace(f.hash, &f);
  const std::map<std::string, std::string> bases = ChooseDeltaBases(manifest, missing);
  for (const std::string& hash : missing) {
    auto it = by_hash.find(hash);
    if (it == by_hash.end()) return ProtocolError("agent asked for a blob not in the bundle");
    std::string base_hash, base;
    if (auto b = bases.find(hash); b != bases.end()) {
      base_hash = b->second;
      KT_ASSIGN_OR_RETURN(base, ReadBase(root, by_hash.at(base_hash)->path, base_hash));
      ++stats->deltas_sent;
    }
    KT_RETURN_IF_ERROR(SendBlob(conn, *it->second, root, base_hash, base, stats));
  }
  for (size_t i = 0; i < missing.size(); ++i) {
    auto ack = conn.Receive();
    if (!ack.ok()) return ack.status().WithContext("push of " + manifest.kernel);
    if (!ack->has_blob_stored()) return ProtocolError("agent did not acknowledge a blob");
  }
  return Status::Ok();
}

}  // namespace

Result<PushStats> PushBundle(AgentConnection& conn, const Manifest& manifest,
                             const std::string& root) {
  PushStats stats;
  stats.files = manifest.files.size();
  wire::Envelope env;
  *env.mutable_push_manifest() = ManifestToWire(manifest);
  KT_RETURN_IF_ERROR(conn.Send(env));
  KT_ASSIGN_OR_RETURN(wire::Envelope reply, conn.Receive());
  if (!reply.has_push_need()) return ProtocolError("agent did not answer the manifest");
  stats.bundle_id = reply.push_need().bundle_id();
  if (stats.bundle_id != BundleId(manifest)) {
    return ProtocolError("agent computed bundle id " + stats.bundle_id + ", expected " +
                         BundleId(manifest));
  }
  const std::vector<std::string> missing(reply.push_need().missing_hashes().begin(),
                                         reply.push_need().missing_hashes().end());
  KT_RETURN_IF_ERROR(SendMissingBlobs(conn, manifest, root, missing, &stats));
  wire::Envelope commit;
  commit.mutable_push_commit()->set_bundle_id(stats.bundle_id);
  KT_RETURN_IF_ERROR(conn.Send(commit));
  KT_ASSIGN_OR_RETURN(wire::Envelope done, conn.Receive());
  if (!done.has_push_done()) return ProtocolError("agent did not confirm the push");
  return stats;
}

Result<wire::RunDone> StreamRun(AgentConnection& conn, const wire::Envelope& ask,
                                const RunStream& stream) {
  KT_RETURN_IF_ERROR(conn.Send(ask));
  bool accepted = false;
  uint32_t received = 0;
  for (;;) {
    KT_ASSIGN_OR_RETURN(wire::Envelope msg, conn.Receive());
    if (msg.has_run_queued() && !accepted) {
      if (stream.on_queued) stream.on_queued(msg.run_queued());
    } else if (msg.has_run_accepted() && !accepted) {
      accepted = true;
      if (stream.on_accepted) KT_RETURN_IF_ERROR(stream.on_accepted(msg.run_accepted()));
    } else if (msg.has_repetition_result() && accepted) {
      ++received;
      if (stream.on_row) KT_RETURN_IF_ERROR(stream.on_row(msg.repetition_result()));
    } else if (msg.has_sample_profile() && accepted) {
      if (stream.on_profile) KT_RETURN_IF_ERROR(stream.on_profile(msg.sample_profile()));
    } else if (msg.has_run_done() && accepted) {
      if (msg.run_done().rows() != received) {
        return ProtocolError("agent sent " + std::to_string(msg.run_done().rows()) + " rows but " +
                             std::to_string(received) + " arrived");
      }
      return msg.run_done();
    } else {
      return ProtocolError(accepted ? "unexpected message during a run"
                                    : "agent did not accept the run");
    }
  }
}

Status RunOnAgent(AgentConnection& conn, const wire::RunRequest& request,
                  const std::function<Status(const wire::RepetitionResult&)>& on_row) {
  wire::Envelope ask;
  *ask.mutable_run_request() = request;
  return StreamRun(conn, ask, {nullptr, nullptr, on_row, nullptr}).status();
}

}  // namespace ktune::host
