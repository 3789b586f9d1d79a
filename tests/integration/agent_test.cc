// agentd as a real process on loopback, driven through khost's client library: push, run,
// every kind of variant outcome, the store's results file, and refusals.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/utsname.h>

#include <boost/asio.hpp>
#include <boost/process.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/fs.h"
#include "common/hash.h"
#include "common/strings.h"
#include "host/cli/cmd_run.h"
#include "host/remote/agent_client.h"
#include "host/results/kernel_dir.h"
#include "protocol/convert.h"
#include "protocol/session_crypto.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;

const std::vector<test::TestVariant> kFive = {
    {"ok.elf", {{"BLOCK_SIZE_M", 4}}, {"demo/run/test_data/matrix_4x4_1.txt", "3"}},
    {"segv.elf", {{"BLOCK_SIZE_M", 8}}, {}},
    {"hang.elf", {{"BLOCK_SIZE_M", 16}}, {}},
    {"notok.elf", {{"BLOCK_SIZE_M", 32}}, {}},
    {"sci.elf", {{"BLOCK_SIZE_M", 64}}, {}},
};

struct Fixture {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  test::AgentProcess agent{tmp.path() + "/store"};
  Fixture() { test::MakeKernelDir(root, "demo", kFive); }
};

std::vector<RepetitionRow> Run(AgentConnection& conn, const wire::RunRequest& req) {
  std::vector<RepetitionRow> rows;
  Status s = RunOnAgent(conn, req, [&](const wire::RepetitionResult& r) {
    rows.push_back(RowFromWire(r, req.variants(static_cast<int>(r.variant_index()))));
    return Status::Ok();
  });
  REQUIRE_MESSAGE(s.ok(), s.message());
  return rows;
}

TEST_CASE("hello reports this machine") {
  Fixture f;
  auto conn = AgentConnection::Connect(f.agent.address());
  REQUIRE(conn.ok());
  const wire::HelloReply& h = (*conn)->hello();
  CHECK(h.protocol_version() == kProtocolVersion);
  utsname u;
  ::uname(&u);
  CHECK(h.capabilities().cpu().arch() == u.machine);
  CHECK(h.capabilities().kernel_release() == u.release);
  CHECK(h.capabilities().cpu_count() >= 1);
  bool task_clock_opens = false;
  for (const auto& e : h.capabilities().events()) {
    if (e.name() == "task-clock") task_clock_opens = e.opens();
  }
  CHECK(task_clock_opens);
}

TEST_CASE("push sends each blob once; run measures every variant and reports every outcome") {
  Fixture f;
  auto dir = LoadKernelDir(f.root, "demo");
  REQUIRE(dir.ok());
  auto manifest = BuildManifest(*dir);
  REQUIRE(manifest.ok());
  auto conn = AgentConnection::Connect(f.agent.address());
  REQUIRE(conn.ok());
  auto first = PushBundle(**conn, *manifest, f.root);
  REQUIRE_MESSAGE(first.ok(), first.status().message());
  CHECK(first->blobs_sent == manifest->files.size());
  CHECK(first->bundle_id == BundleId(*manifest));
  auto again = PushBundle(**conn, *manifest, f.root);
  REQUIRE(again.ok());
  CHECK(again->blobs_sent == 0);
  CHECK(again->raw_bytes_sent == 0);

  auto opts = ParseRunArgs({"demo", "--events", "task-clock,page-faults,cycles", "--reps", "2",
                            "--warmup", "1", "--timeout", "0.5"});
  REQUIRE(opts.ok());
  const wire::RunRequest req = MakeRunRequest(*opts, *dir, first->bundle_id, "run-1");
  // Every row is in the agent's results file before it reaches the host.
  const std::string agent_results = f.tmp.path() + "/store/runs/run-1/results.csv";
  std::vector<RepetitionRow> rows;
  Status run = RunOnAgent(**conn, req, [&](const wire::RepetitionResult& r) {
    rows.push_back(RowFromWire(r, req.variants(static_cast<int>(r.variant_index()))));
    const std::string on_disk = ReadFile(agent_results).value();
    CHECK(on_disk.find(ToCsvLines(rows.back())) != std::string::npos);
    return Status::Ok();
  });
  REQUIRE_MESSAGE(run.ok(), run.message());
  REQUIRE(rows.size() == 10);

  for (const RepetitionRow& r : rows) {
    CAPTURE(r.variant);
    CHECK(r.values[0].name == kWallTime);
    CHECK(r.values[1].name == kKernelTime);
    CHECK(r.Find("task-clock")->status == ValueStatus::kOk);
    CHECK(r.Find("page-faults")->status == ValueStatus::kOk);
    CHECK(r.Find("cycles") != nullptr);
    CHECK(r.params.size() == 1);
    switch (r.variant_index) {
      case 0:
        CHECK(r.valid);
        CHECK(r.Find(kKernelTime)->status == ValueStatus::kOk);
        CHECK(r.Find(kKernelTime)->value >= 0.003);
        break;
      case 1:
        CHECK_FALSE(r.valid);
        CHECK(r.outcome.ToString() == "signal:SIGSEGV");
        break;
      case 2:
        CHECK_FALSE(r.valid);
        CHECK(r.outcome.ToString() == "timeout");
        break;
      case 3:
        CHECK_FALSE(r.valid);
        CHECK(r.outcome.ToString() == "exit:0");
        CHECK(r.Find(kKernelTime)->value == 0.001);
        break;
      case 4:
        CHECK(r.valid);
        CHECK(r.Find(kKernelTime)->value == 5e-05);
        break;
    }
  }

  // Every row the host received is in the agent's results file, identical and in order.
  auto text = ReadFile(agent_results);

  REQUIRE(text.ok());
  auto stored = ParseResultsCsv(*text);
  REQUIRE(stored.ok());
  REQUIRE(stored->rows.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    CHECK(ToCsvLines(stored->rows[i]) == ToCsvLines(rows[i]));
}

TEST_CASE("non-UTF-8 names and output travel intact; checks see past the kept output") {
  Fixture f;
  test::MakeKernelDir(f.root, "odd",
                      {{"probe.elf", {{"B", 1}}, {"badutf8"}},
                       {"probe.elf", {{"B", 2}}, {"late-notok"}},
                       {"probe.elf", {{"B", 3}}, {"late-time"}}});
  std::ofstream(f.root + "/odd/run/test_data/caf\xe9.txt") << "1 1\n";
  auto dir = LoadKernelDir(f.root, "odd");
  REQUIRE(dir.ok());
  auto conn = AgentConnection::Connect(f.agent.address());
  REQUIRE(conn.ok());
  auto pushed = PushBundle(**conn, BuildManifest(*dir).value(), f.root);
  REQUIRE_MESSAGE(pushed.ok(), pushed.status().message());
  auto opts = ParseRunArgs({"odd", "--events", "task-clock", "--reps", "1", "--warmup", "0"});
  const wire::RunRequest req = MakeRunRequest(*opts, *dir, pushed->bundle_id, "odd-run");
  // By variant: the rounds' order is shuffled.
  std::map<uint32_t, std::string> excerpts;
  std::map<uint32_t, RepetitionRow> rows;
  Status s = RunOnAgent(**conn, req, [&](const wire::RepetitionResult& r) {
    excerpts[r.variant_index()] = r.output_excerpt();
    rows[r.variant_index()] = RowFromWire(r, req.variants(static_cast<int>(r.variant_index())));
    return Status::Ok();
  });
  REQUIRE_MESSAGE(s.ok(), s.message());
  REQUIRE(rows.size() == 3);
  CHECK_FALSE(rows[0].valid);
  CHECK(excerpts[0].find("caf\xe9 \xff\xfe") != std::string::npos);
  CHECK_FALSE(rows[1].valid);  // "NOT OK" came after the first MiB of output
  CHECK(rows[2].valid);
  CHECK(rows[2].Find(kKernelTime)->value == 0.5);
}

// The pids of processes whose command line mentions `needle`.
std::vector<int> PidsMentioning(const std::string& needle) {
  std::vector<int> pids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    auto cmdline = ReadFile(e.path().string() + "/cmdline");
    if (cmdline.ok() && cmdline->find(needle) != std::string::npos &&
        cmdline->find("agentd") != std::string::npos) {
      pids.push_back(std::stoi(e.path().filename().string()));
    }
  }
  return pids;
}

// agentd --daemon --store <store> with `args`: its first line of output and exit status, and the
// address it listens on; every agentd using the store is stopped however the test ends.
class Daemon {
 public:
  Daemon(const std::string& store, const std::vector<std::string>& args) : store_(store) {
    namespace bp = boost::process;
    bp::ipstream out;
    exit_code = bp::system(test::BinDir() + "/agentd", "--daemon", "--store", store, bp::args(args),
                           bp::std_out > out);
    std::getline(out, line);
    const size_t at = line.find(" listening on ");
    if (at == std::string::npos) return;
    auto parsed = ParseHostPort(line.substr(at + 14, line.find(' ', at + 14) - at - 14),
                                /*allow_port_zero=*/false);
    if (parsed.ok()) address = *parsed;
  }
  ~Daemon() {
    for (int pid : PidsMentioning(store_)) ::kill(pid, SIGTERM);
  }
  int exit_code = -1;
  std::string line;
  std::optional<HostPort> address;

 private:
  std::string store_;
};

TEST_CASE("agentd --daemon detaches, tells its address, and still measures") {
  test::TempDir tmp;
  const std::string store = tmp.path() + "/store";
  test::MakeKernelDir(tmp.path() + "/work", "demo", {kFive[4]});
  Daemon daemon(store, {"--listen", "127.0.0.1:0"});
  CHECK(daemon.exit_code == 0);
  REQUIRE_MESSAGE(daemon.address.has_value(), daemon.line);
  CHECK(PidsMentioning(store).size() == 1);
  auto conn = AgentConnection::Connect(*daemon.address);
  REQUIRE(conn.ok());
  auto dir = LoadKernelDir(tmp.path() + "/work", "demo");
  auto pushed = PushBundle(**conn, BuildManifest(*dir).value(), tmp.path() + "/work");
  REQUIRE(pushed.ok());
  auto opts = ParseRunArgs({"demo", "--events", "task-clock", "--reps", "1", "--warmup", "0"});
  const std::vector<RepetitionRow> rows =
      Run(**conn, MakeRunRequest(*opts, *dir, pushed->bundle_id, "daemon-run"));
  CHECK(rows.size() == 1);
  CHECK(rows[0].valid);
}

TEST_CASE("off loopback agentd needs a token; hosts prove they hold it and the session is sealed") {
  namespace bp = boost::process;
  test::TempDir tmp;
  const std::string store = tmp.path() + "/store";
  bp::ipstream err;
  const int refused = bp::system(test::BinDir() + "/agentd", "--listen", "0.0.0.0:0", "--store",
                                 store, bp::std_out > bp::null, bp::std_err > err);
  CHECK(refused == 2);
  std::string line;
  std::getline(err, line);
  CHECK(line ==
        "agentd: refusing to listen on 0.0.0.0:0 without a token: off loopback, hosts must "
        "authenticate (--token-file; agentd --make-token FILE writes one)");

  const std::string token_path = tmp.path() + "/token";
  REQUIRE(bp::system(test::BinDir() + "/agentd", "--make-token", token_path,
                     bp::std_out > bp::null) == 0);
  const fs::perms mode = fs::status(token_path).permissions() & fs::perms::all;
  CHECK(mode == (fs::perms::owner_read | fs::perms::owner_write));
  const Token token = Token::Load(token_path).value();
  Daemon daemon(store, {"--listen", "0.0.0.0:0", "--token-file", token_path});
  REQUIRE(daemon.exit_code == 0);
  REQUIRE_MESSAGE(daemon.address.has_value(), daemon.line);
  const HostPort at{"127.0.0.1", daemon.address->port};

  // No token, a wrong one: refused, and the agent goes on serving.
  auto none = AgentConnection::Connect(at);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == ErrorCode::kUnauthenticated);
  CHECK_MESSAGE(none.status().message().find("asks for a token") != std::string::npos,
                none.status().message());
  const Token wrong = Token::FromText(std::string(64, '7')).value();
  auto bad = AgentConnection::Connect(at, wrong);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == ErrorCode::kUnauthenticated);
  CHECK_MESSAGE(bad.status().message().find("the token does not match") != std::string::npos,
                bad.status().message());
  auto log = ReadFile(store + "/agentd.log");
  REQUIRE(log.ok());
  CHECK(log->find("authentication failed from 127.0.0.1:") != std::string::npos);

  // The token: authenticated and sealed (the agent listens off loopback); a push and a run work.
  auto conn = AgentConnection::Connect(at, token);
  REQUIRE_MESSAGE(conn.ok(), conn.status().message());
  test::MakeKernelDir(tmp.path() + "/work", "demo", {kFive[4]});
  auto dir = LoadKernelDir(tmp.path() + "/work", "demo");
  auto pushed = PushBundle(**conn, BuildManifest(*dir).value(), tmp.path() + "/work");
  REQUIRE(pushed.ok());
  auto opts = ParseRunArgs({"demo", "--events", "task-clock", "--reps", "2", "--warmup", "0"});
  const std::vector<RepetitionRow> rows =
      Run(**conn, MakeRunRequest(*opts, *dir, pushed->bundle_id, "sealed-run"));
  CHECK(rows.size() == 2);
  CHECK(ReadFile(store + "/agentd.log")->find("authenticated, session sealed") !=
        std::string::npos);

  // A third party flipping one bit of a sealed frame: the host notices, nothing is accepted.
  test::FaultProxy flip(at, {.flip_after = 400, .cut_after = std::nullopt});
  auto tampered = AgentConnection::Connect(flip.address(), token);
  Status seen = tampered.status();
  if (tampered.ok()) {
    auto pushed_again = PushBundle(**tampered, BuildManifest(*dir).value(), tmp.path() + "/work");
    seen = pushed_again.status();
  }
  REQUIRE_FALSE(seen.ok());
  CHECK_MESSAGE(seen.message().find("failed its check") != std::string::npos, seen.message());

  // khost names the token file; a token others can read is refused.
  auto ok = test::RunKhost(
      {"agent", "status", "--agent", at.ToString(), "--token-file", token_path}, tmp.path());
  CHECK_MESSAGE(ok.exit_code == 0, ok.err);
  fs::permissions(token_path, fs::perms::group_read, fs::perm_options::add);
  auto loose = test::RunKhost({"agent", "status", "--agent", at.ToString()}, tmp.path(),
                              {{"KTUNE_TOKEN_FILE", token_path}});
  CHECK(loose.exit_code == 1);
  CHECK_MESSAGE(
      loose.err.find("is readable by others (mode 0640): chmod 600 it") != std::string::npos,
      loose.err);
}

// agentd's exit status and first line on stderr with `args` (and --store `store`).
std::pair<int, std::string> AgentdFails(const std::string& store,
                                        const std::vector<std::string>& args) {
  namespace bp = boost::process;
  bp::ipstream err;
  const int code = bp::system(test::BinDir() + "/agentd", "--store", store, bp::args(args),
                              bp::std_out > bp::null, bp::std_err > err);
  std::string line;
  std::getline(err, line);
  return {code, line};
}

TEST_CASE("agentd's later usage errors: after the token file, and under --daemon after the fork") {
  test::TempDir tmp;
  const std::string store = tmp.path() + "/store", no_token = tmp.path() + "/no-token";
  const std::string budget = "agentd: --fake-counter-budget must be 0 or more";
  const std::string wrapper =
      "agentd: --exec-wrapper: no-such-tool-ktune is not an executable in PATH";
  const std::vector<std::string> bad_budget = {"--fake-counter-budget", "-1"};
  const std::vector<std::string> bad_wrapper = {"--exec-wrapper", "no-such-tool-ktune"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  CHECK(AgentdFails(store, bad_budget) == std::pair(2, budget));
  CHECK(AgentdFails(store, bad_wrapper) == std::pair(2, wrapper));
  CHECK(AgentdFails(store, with(bad_wrapper, bad_budget)) == std::pair(2, budget));
  // The token file is loaded first, before the fork.
  const std::vector<std::vector<std::string>> foreground_and_daemon = {{}, {"--daemon"}};
  for (const std::vector<std::string>& daemon : foreground_and_daemon) {
    const auto [code, line] =
        AgentdFails(store, with(with(daemon, {"--token-file", no_token}), bad_budget));
    CHECK(code == 2);
    CHECK_MESSAGE(line.starts_with("agentd: token file " + no_token), line);
  }
  // With --daemon the detached child says why; the parent, which got no address, exits 1.
  CHECK(AgentdFails(store, with({"--daemon"}, bad_budget)) == std::pair(1, budget));
  CHECK(AgentdFails(store, with({"--daemon"}, bad_wrapper)) == std::pair(1, wrapper));
  CHECK_FALSE(fs::exists(store));
}

TEST_CASE("runs are refused for unknown bundles, absent ELFs, unknown events and bad parameters") {
  Fixture f;
  auto dir = LoadKernelDir(f.root, "demo");
  REQUIRE(dir.ok());
  auto conn = AgentConnection::Connect(f.agent.address());
  REQUIRE(conn.ok());
  auto pushed = PushBundle(**conn, BuildManifest(*dir).value(), f.root);
  REQUIRE(pushed.ok());
  auto opts = ParseRunArgs({"demo", "--events", "task-clock", "--reps", "1"});
  auto expect_error = [&](wire::RunRequest req, ErrorCode code, const std::string& text) {
    Status s = RunOnAgent(**conn, req, [](const wire::RepetitionResult&) { return Status::Ok(); });
    CHECK(s.code() == code);
    CHECK_MESSAGE(s.message().find(text) != std::string::npos, s.message());
  };
  expect_error(MakeRunRequest(*opts, *dir, HashBytes("nothing"), "r"), ErrorCode::kNotFound,
               "not on this agent");
  wire::RunRequest absent = MakeRunRequest(*opts, *dir, pushed->bundle_id, "r");
  absent.mutable_variants(0)->set_elf_path("demo/run/bin/missing.elf");
  expect_error(absent, ErrorCode::kNotFound, "not in the bundle");
  wire::RunRequest bad_event = MakeRunRequest(*opts, *dir, pushed->bundle_id, "r");
  bad_event.add_events("cylces");
  expect_error(bad_event, ErrorCode::kInvalidArgument, "unknown event");
  wire::RunRequest no_variant = MakeRunRequest(*opts, *dir, pushed->bundle_id, "r");
  no_variant.clear_variants();
  expect_error(no_variant, ErrorCode::kInvalidArgument, "run request names no variant");
  wire::RunRequest adaptive = MakeRunRequest(*opts, *dir, pushed->bundle_id, "r");
  adaptive.mutable_adaptive()->set_min_reps(4);
  adaptive.mutable_adaptive()->set_target_ci(0.02);
  expect_error(adaptive, ErrorCode::kInvalidArgument,
               "need 4 <= min_reps <= max_reps, not 4 and 1");
  wire::RunRequest bad_id = MakeRunRequest(*opts, *dir, pushed->bundle_id, "../escape");
  expect_error(bad_id, ErrorCode::kInvalidArgument, "invalid run id");
  // A parameter the journal could not keep (FetchRun and resume read it back).
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"A=B", "1"}, {"A;B", "1"}, {"", "1"}, {"A", "1;B=2"}}) {
    wire::RunRequest bad_param = MakeRunRequest(*opts, *dir, pushed->bundle_id, "r");
    wire::Param* p = bad_param.mutable_variants(0)->add_params();
    p->set_name(name);
    p->set_value(value);
    CAPTURE(name);
    expect_error(bad_param, ErrorCode::kInvalidArgument, "a name must be non-empty");
  }
  // Path traversal: an ELF outside the bundle is refused before anything runs.
  for (const char* escape : {"../../../bin/true", "/bin/true", "demo/../../x", "demo/./run"}) {
    wire::RunRequest outside = MakeRunRequest(*opts, *dir, pushed->bundle_id, "r");
    outside.mutable_variants(0)->set_elf_path(escape);
    CAPTURE(escape);
    expect_error(outside, ErrorCode::kInvalidArgument, "");
  }
  // The connection still serves after the refusals.
  auto again = PushBundle(**conn, BuildManifest(*dir).value(), f.root);
  CHECK(again.ok());
}

// A raw connection that speaks the codec directly, to send what khost never would.
class RawPeer {
 public:
  explicit RawPeer(const HostPort& to) : socket_(io_) {
    boost::asio::connect(
        socket_, boost::asio::ip::tcp::resolver(io_).resolve(to.host, std::to_string(to.port)));
  }
  void Send(const wire::Envelope& env) {
    boost::asio::write(socket_, boost::asio::buffer(codec_.Encode(env).value()));
  }
  void SendBytes(const std::string& bytes) {
    boost::asio::write(socket_, boost::asio::buffer(bytes));
  }
  // The next message, or std::nullopt when the agent closed the connection.
  std::optional<wire::Envelope> Receive() {
    for (;;) {
      auto next = codec_.Next();
      REQUIRE(next.ok());
      if (next->has_value()) return **next;
      char buf[4096];
      boost::system::error_code ec;
      size_t n = socket_.read_some(boost::asio::buffer(buf), ec);
      if (ec) return std::nullopt;
      codec_.Feed(std::string_view(buf, n));
    }
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  FrameCodec codec_;
};

wire::Envelope HelloMsg(uint32_t version) {
  wire::Envelope env;
  env.mutable_hello()->set_protocol_version(version);
  return env;
}

TEST_CASE("a protocol version mismatch is refused with a clear error and the agent keeps serving") {
  Fixture f;
  RawPeer peer(f.agent.address());
  peer.Send(HelloMsg(999));
  auto reply = peer.Receive();
  REQUIRE(reply.has_value());
  REQUIRE(reply->has_error());
  CHECK(reply->error().code() == wire::ERROR_VERSION_MISMATCH);
  CHECK(reply->error().message().find("protocol 999") != std::string::npos);
  CHECK_FALSE(peer.Receive().has_value());  // closed
  CHECK(AgentConnection::Connect(f.agent.address()).ok());
}

TEST_CASE("a peer that accepts but never answers Hello fails the connection, not hangs it") {
  // What khost meets behind an ssh forward whose board has a stopped agentd: the connection is
  // accepted, and nothing comes back.
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const HostPort address{"127.0.0.1", silent.local_endpoint().port()};
  auto conn = AgentConnection::Connect(address, std::nullopt, std::chrono::milliseconds(200));
  REQUIRE_FALSE(conn.ok());
  CHECK(conn.status().code() == ErrorCode::kUnavailable);
  CHECK(conn.status().message().find("did not answer the handshake in time") != std::string::npos);
}

TEST_CASE("malformed and oversized frames close only their own connection") {
  Fixture f;
  {
    RawPeer peer(f.agent.address());
    wire::Envelope manifest;
    manifest.mutable_push_manifest()->set_kernel("demo");
    peer.Send(manifest);  // before Hello
    auto reply = peer.Receive();
    REQUIRE(reply.has_value());
    CHECK(reply->error().code() == wire::ERROR_PROTOCOL);
  }
  {
    RawPeer peer(f.agent.address());
    peer.SendBytes(std::string("\x7f\xff\xff\xff", 4));
    auto reply = peer.Receive();
    REQUIRE(reply.has_value());
    CHECK(reply->error().message().find("over the maximum") != std::string::npos);
    CHECK_FALSE(peer.Receive().has_value());
  }
  {
    RawPeer peer(f.agent.address());
    peer.SendBytes(std::string("\x00\x00\x00\x02\xff\xff", 6));
    auto reply = peer.Receive();
    REQUIRE(reply.has_value());
    CHECK(reply->error().code() == wire::ERROR_PROTOCOL);
  }
  CHECK(AgentConnection::Connect(f.agent.address()).ok());
}

TEST_CASE("a blob whose bytes do not match its hash is refused and never stored") {
  Fixture f;
  RawPeer peer(f.agent.address());
  peer.Send(HelloMsg(kProtocolVersion));
  REQUIRE(peer.Receive()->has_hello_reply());
  Manifest m;
  m.kernel = "demo";
  const std::string claimed = HashBytes("the real content");
  m.files = {{"demo/run/configs.json", claimed, 16, 0644}};
  wire::Envelope env;
  *env.mutable_push_manifest() = ManifestToWire(m);
  peer.Send(env);
  auto need = peer.Receive();
  REQUIRE(need->has_push_need());
  REQUIRE(need->push_need().missing_hashes_size() == 1);
  wire::Envelope chunk;
  chunk.mutable_blob_chunk()->set_hash(claimed);
  chunk.mutable_blob_chunk()->set_raw_size(16);
  chunk.mutable_blob_chunk()->set_data(CompressChunk("forged content!!"));
  chunk.mutable_blob_chunk()->set_last(true);
  peer.Send(chunk);
  auto reply = peer.Receive();
  REQUIRE(reply.has_value());
  REQUIRE(reply->has_error());
  CHECK(reply->error().code() == wire::ERROR_INVALID_ARGUMENT);
  CHECK(reply->error().message().find("arrived with hash") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(f.tmp.path() + "/store/blobs/" + claimed.substr(0, 2) + "/" +
                                      claimed));
  // A manifest whose path leaves the bundle is refused, nothing of it stored.
  for (const char* escape : {"../../etc/passwd", "/etc/passwd", "demo/../../x", "a//b", ""}) {
    CAPTURE(escape);
    m.files[0].path = escape;
    *env.mutable_push_manifest() = ManifestToWire(m);
    peer.Send(env);
    auto refused = peer.Receive();
    REQUIRE(refused.has_value());
    REQUIRE(refused->has_error());
    CHECK(refused->error().code() == wire::ERROR_INVALID_ARGUMENT);
  }
  size_t bundles = 0;  // the first manifest's, no other
  for (const auto& e : std::filesystem::directory_iterator(f.tmp.path() + "/store/bundles")) {
    bundles += e.is_directory();
  }
  CHECK(bundles == 1);
}

TEST_CASE("a blob sent as a delta is stored only against a base of its bundle the agent holds") {
  Fixture f;
  std::string a(64 * 1024, '\0');
  uint32_t x = 7;
  for (char& c : a) c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
  std::string b = a;
  b.replace(100, 5, "delta");
  Manifest m;
  m.kernel = "demo";
  m.files = {{"demo/run/bin/a.elf", HashBytes(a), a.size(), 0755},
             {"demo/run/bin/b.elf", HashBytes(b), b.size(), 0755}};
  auto chunk_of = [](const std::string& raw, const std::string& base,
                     const std::string& base_hash) {
    wire::Envelope env;
    auto* c = env.mutable_blob_chunk();
    c->set_hash(HashBytes(raw));
    c->set_raw_size(raw.size());
    c->set_data(CompressChunk(raw, base));
    c->set_base_hash(base_hash);
    c->set_last(true);
    return env;
  };
  auto start_push = [&](RawPeer& peer) {
    peer.Send(HelloMsg(kProtocolVersion));
    REQUIRE(peer.Receive()->has_hello_reply());
    wire::Envelope env;
    *env.mutable_push_manifest() = ManifestToWire(m);
    peer.Send(env);
    auto need = peer.Receive();
    REQUIRE(need->has_push_need());
    return need->push_need().missing_hashes_size();
  };
  {  // b against a, before a arrived: a protocol error, and b is not stored
    RawPeer peer(f.agent.address());
    REQUIRE(start_push(peer) == 2);
    peer.Send(chunk_of(b, a, HashBytes(a)));
    auto reply = peer.Receive();
    REQUIRE(reply.has_value());
    REQUIRE(reply->has_error());
    CHECK(reply->error().code() == wire::ERROR_PROTOCOL);
    CHECK(reply->error().message().find("is not a stored blob of the bundle being pushed") !=
          std::string::npos);
  }
  {  // against a blob of no bundle being pushed: the same
    RawPeer peer(f.agent.address());
    REQUIRE(start_push(peer) == 2);
    peer.Send(chunk_of(b, "x", HashBytes("x")));
    auto reply = peer.Receive();
    REQUIRE(reply.has_value());
    CHECK(reply->error().code() == wire::ERROR_PROTOCOL);
  }
  {  // a alone, then b against a: both stored, b whole; its frame is a fraction of it
    RawPeer peer(f.agent.address());
    REQUIRE(start_push(peer) == 2);
    peer.Send(chunk_of(a, "", ""));
    REQUIRE(peer.Receive()->has_blob_stored());
    const wire::Envelope delta = chunk_of(b, a, HashBytes(a));
    CHECK(delta.blob_chunk().data().size() < b.size() / 100);
    peer.Send(delta);
    auto stored = peer.Receive();
    REQUIRE(stored.has_value());
    REQUIRE_MESSAGE(stored->has_blob_stored(), stored->error().message());
    const std::string hash = HashBytes(b);
    CHECK(ReadFile(f.tmp.path() + "/store/blobs/" + hash.substr(0, 2) + "/" + hash).value() == b);
  }
}

TEST_CASE("a zstd bomb is refused before it is inflated; the agent goes on") {
  Fixture f;
  Manifest m;
  m.kernel = "demo";
  const std::string zeros(kBlobChunkBytes, '\0');
  m.files = {{"demo/run/zeros.bin", HashBytes(zeros), zeros.size(), 0644}};
  // A frame that inflates to 64 chunks' worth, announced as one chunk, then as what it is: more
  // than a chunk may hold. Either closes its session (a protocol error).
  const std::string bomb = CompressChunk(std::string(64 * kBlobChunkBytes, '\0'));
  CHECK(bomb.size() < 64 * 1024);
  for (uint64_t announced : {uint64_t{kBlobChunkBytes}, uint64_t{64} * kBlobChunkBytes}) {
    CAPTURE(announced);
    RawPeer peer(f.agent.address());
    peer.Send(HelloMsg(kProtocolVersion));
    REQUIRE(peer.Receive()->has_hello_reply());
    wire::Envelope env;
    *env.mutable_push_manifest() = ManifestToWire(m);
    peer.Send(env);
    REQUIRE(peer.Receive()->has_push_need());
    wire::Envelope chunk;
    chunk.mutable_blob_chunk()->set_hash(m.files[0].hash);
    chunk.mutable_blob_chunk()->set_raw_size(announced);
    chunk.mutable_blob_chunk()->set_data(bomb);
    chunk.mutable_blob_chunk()->set_last(true);
    peer.Send(chunk);
    auto reply = peer.Receive();
    REQUIRE(reply.has_value());
    REQUIRE(reply->has_error());
    CHECK(reply->error().code() == wire::ERROR_PROTOCOL);
    CHECK_FALSE(peer.Receive().has_value());
  }
  CHECK(AgentConnection::Connect(f.agent.address()).ok());
}

}  // namespace
}  // namespace ktune::host
