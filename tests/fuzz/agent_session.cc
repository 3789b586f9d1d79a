// Fuzzes agentd's handling of what a host sends (agent/server/session.cc and the parts it
// dispatches to): every Envelope after the handshake reaches its handler -- PushManifest,
// BlobChunk, PushCommit, RunRequest, FetchRun, TuneSystem, and messages a host must not send --
// through the agent's own framing, store and run registry.
//
// Every input talks to one AgentServer, made at the first input (no token, so no proof is
// needed; a fake counter budget, so no PMU is probed; the CPU read from a copy of
// /proc/cpuinfo's first CPU), over a socketpair of its own (AgentServer::Serve: no port, so no
// TIME_WAIT, no connect). The target plays the host at the other end: it sends a valid Hello and
// then the input (frames of Envelopes, as tests/fuzz/make_seeds.cc writes them), closes its
// sending side and reads what the agent answers until the agent closes the connection. Then it
// waits until no run the input started is measuring or queued (AgentServer::measuring), and
// empties the store, leaving its top directories and lock file as a new agent has them: nothing
// of one input is left for the next, which meets an agent as it was before the first (the
// store's in-memory state is its root and lock alone; the runs and pins registry is empty once
// the runs ended). No workload ever runs: the agent's exec wrapper is a path that does not
// exist, so a run that gets that far fails to launch; the system check reads, and tune-system
// writes, an empty scratch tree (--fake-system-root), never the machine's /sys.
//
// The agent does what a request asks, however long: a run of a million repetitions takes about a
// minute of failed launches, a cool-down of an hour an hour. Such an input is long work, not a
// hang, and the target skips it (returns -1: libFuzzer keeps none in the corpus): its runs ask
// for at most kMaxSlots launches and kMaxCooldownMs of cool-down in all.
//
// Asserts, beyond no crash, no sanitizer report, no leak and no hang:
// - the agent answers in whole frames of Envelopes an agent sends, HelloReply first;
// - every blob in the store holds the content its name is the hash of;
// - nothing is written outside the store.
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "agent/server/agent_server.h"
#include "agent/server/log.h"
#include "agent/store/layout.h"
#include "common/fs.h"
#include "common/hash.h"
#include "protocol/frame_codec.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

constexpr uint64_t kMaxSlots = 2000;
constexpr uint64_t kMaxCooldownMs = 1000;

// Whether the frames of `input` ask for a run longer than the bounds above. A run's launches are
// its repetitions and warm-ups for every variant and every pass (at most one per event).
bool AsksForLongWork(std::string_view input) {
  FrameCodec codec;
  codec.Feed(input);
  for (;;) {
    auto next = codec.Next();
    if (!next.ok() || !next->has_value()) return false;
    if (!(*next)->has_run_request()) continue;
    const wire::RunRequest& r = (*next)->run_request();
    const uint64_t slots = (uint64_t{r.repetitions()} + r.warmup()) *
                           std::max(1, r.variants_size()) *
                           std::max(1, r.events_size() + r.record_size());
    if (slots > kMaxSlots || r.cooldown_ms() > kMaxCooldownMs / std::max<uint64_t>(slots, 1)) {
      return true;
    }
  }
}

bool SentByAgent(const wire::Envelope& msg) {
  switch (msg.body_case()) {
    case wire::Envelope::kError:
    case wire::Envelope::kHelloReply:
    case wire::Envelope::kPushNeed:
    case wire::Envelope::kBlobStored:
    case wire::Envelope::kPushDone:
    case wire::Envelope::kRunAccepted:
    case wire::Envelope::kRunQueued:
    case wire::Envelope::kRepetitionResult:
    case wire::Envelope::kSampleProfile:
    case wire::Envelope::kRunDone:
    case wire::Envelope::kSystemTuned:
      return true;
    default:
      return false;
  }
}

// Gives `server` one end of a socketpair, sends `bytes` at the other, then reads the agent's
// answer until it closes the connection; through the io_context's loop, which the server's
// session runs on too.
std::string Converse(asio::io_context& io, agent::AgentServer& server, const std::string& bytes) {
  int pair[2];
  FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
  server.Serve(pair[0]);
  asio::local::stream_protocol::socket socket(io, asio::local::stream_protocol(), pair[1]);
  asio::async_write(socket, asio::buffer(bytes), [&](boost::system::error_code, size_t) {
    boost::system::error_code ignored;
    socket.shutdown(asio::socket_base::shutdown_send, ignored);
  });
  std::string answer;
  std::array<char, 1 << 16> buffer;
  bool closed = false;
  std::function<void()> read = [&] {
    socket.async_read_some(asio::buffer(buffer), [&](boost::system::error_code ec, size_t n) {
      if (ec) {
        closed = true;
        return;
      }
      answer.append(buffer.data(), n);
      read();
    });
  };
  read();
  while (!closed) io.run_one();
  return answer;
}

// The first answer's HelloReply frame. The agent answers every input's Hello alike (its
// capabilities: this machine's CPU, its events, the empty scratch tree's system check), and a
// frame starting an answer with the same bytes is the same HelloReply: read once, not again for
// each input (reading it and freeing it took 8% of an input's time).
std::string& KnownHelloFrame() {
  static std::string frame;
  return frame;
}

void CheckAnswer(const std::string& answer) {
  FUZZ_CHECK(WholeFramesBytes(answer) == answer.size());
  const std::string& known = KnownHelloFrame();
  const bool known_first = !known.empty() && answer.starts_with(known);
  FrameCodec codec;
  codec.Feed(std::string_view(answer).substr(known_first ? known.size() : 0));
  bool first = !known_first;
  for (;;) {
    auto next = codec.Next();
    FUZZ_CHECK(next.ok());
    if (!next->has_value()) break;
    FUZZ_CHECK(SentByAgent(**next));
    if (first) {
      FUZZ_CHECK((*next)->has_hello_reply());
      if (known.empty())
        KnownHelloFrame() = answer.substr(0, answer.size() - codec.buffered_bytes());
    }
    first = false;
  }
  FUZZ_CHECK(!first);
}

// Calls fn(name, type) for each entry of the directory `path` but "." and "..", `type` a d_type
// (DT_DIR, DT_REG...). Read with getdents64 into a buffer on the stack: glibc's opendir allocates
// 32 KiB per directory, which ASan poisons and quarantines, and listing the store's directories
// that way took a tenth of an input's time.
template <typename Fn>
void ForEachEntry(const std::string& path, Fn fn) {
  const ScopedFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  FUZZ_CHECK(dir.get() >= 0);
  alignas(dirent64) char buffer[4096];
  for (;;) {
    const ssize_t n = ::getdents64(dir.get(), buffer, sizeof buffer);
    FUZZ_CHECK(n >= 0);
    if (n == 0) return;
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
      const std::string_view name = entry->d_name;
      if (name != "." && name != "..") fn(name, entry->d_type);
      at += entry->d_reclen;
    }
  }
}

// Every blob under `dir` holds the content its name is the hash of.
void CheckBlobs(const std::string& dir) {
  ForEachEntry(dir, [&](std::string_view name, unsigned char type) {
    const std::string path = dir + "/" + std::string(name);
    if (type == DT_DIR) return CheckBlobs(path);
    if (type != DT_REG) return;
    auto hash = HashFile(path);
    FUZZ_CHECK(hash.ok() && *hash == name);
  });
}

// Checks the store and leaves it as an agent finds a new one once it opened it: its top
// directories, empty, and its lock file. Nothing is written beside the store, and every blob in
// it holds the content its name is the hash of.
void CheckAndEmptyStore(const std::string& agent_dir, const std::string& store_dir) {
  ForEachEntry(agent_dir, [&](std::string_view name, unsigned char) {
    FUZZ_CHECK(agent_dir + "/" + std::string(name) == store_dir);
  });
  const agent::StoreLayout layout(store_dir);
  const std::vector<std::string> kept = layout.Directories();
  ForEachEntry(store_dir, [&](std::string_view name, unsigned char type) {
    const std::string path = store_dir + "/" + std::string(name);
    if (path == layout.lock_file()) return;
    if (type != DT_DIR || std::find(kept.begin(), kept.end(), path) == kept.end()) {
      return RemoveTree(path);
    }
    if (path == layout.blobs()) CheckBlobs(path);
    ForEachEntry(path, [&](std::string_view inside, unsigned char) {
      RemoveTree(path + "/" + std::string(inside));
    });
  });
}

}  // namespace
}  // namespace ktune

// The machine's identity, as agentd reads it from /proc/cpuinfo, in a file of one CPU's lines:
// read at every AgentServer::Create, the kernel writes /proc/cpuinfo for every CPU anew.
const std::string& CpuInfoCopy() {
  static const std::string path = [] {
    auto info = ktune::ReadFile("/proc/cpuinfo");
    FUZZ_CHECK_OK(info);
    const size_t end = info->find("\n\n");
    const std::string file = ktune::FuzzScratchDir() + "/cpuinfo";
    FUZZ_CHECK(ktune::WriteFileAtomic(file, info->substr(0, end)).ok());
    return file;
  }();
  return path;
}

// The agent every input talks to, made at the first input: one server, its store emptied after
// each input, as a new agent finds it (starting and stopping a server for each input, its
// store, listener and measurement thread, took a quarter of the target's time).
struct Agent {
  Agent();

  std::string dir = ktune::FuzzScratchDir() + "/agent";
  std::string store_dir = dir + "/store";
  boost::asio::io_context io;
  std::unique_ptr<ktune::agent::AgentServer> server;
};

Agent::Agent() {
  ktune::agent::AgentOptions options;
  options.listen = {"127.0.0.1", 0};  // a listener no one connects to: inputs come by Serve
  options.store_dir = store_dir;
  options.fake_counter_budget = 4;
  options.exec_wrapper = {dir + "/no-such-wrapper"};
  options.fake_system_root = dir + "/system";
  options.fake_cpuinfo = CpuInfoCopy();
  std::filesystem::create_directory(dir);
  // The server's thread (the measurer's) inherits this thread's signal mask: started with
  // libFuzzer's watchdog signal (SIGALRM, for -timeout) blocked, it leaves it to this thread,
  // so it never interrupts its blocking calls, as nothing does in agentd.
  sigset_t alarm, before;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  FUZZ_CHECK(::pthread_sigmask(SIG_BLOCK, &alarm, &before) == 0);
  auto created = ktune::agent::AgentServer::Create(io, options);
  FUZZ_CHECK(::pthread_sigmask(SIG_SETMASK, &before, nullptr) == 0);
  FUZZ_CHECK_OK(created);
  server = std::move(*created);
}

Agent& TheAgent() {
  static Agent agent;
  return agent;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ktune::agent::SetLogLevel(ktune::agent::LogLevel::kError);
  CpuInfoCopy();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  if (AsksForLongWork(std::string_view(reinterpret_cast<const char*>(data), size))) return -1;
  wire::Envelope hello;
  hello.mutable_hello()->set_protocol_version(kProtocolVersion);
  hello.mutable_hello()->set_client_version("fuzz");
  std::string bytes = FrameCodec().Encode(hello).value();
  bytes.append(reinterpret_cast<const char*>(data), size);

  Agent& agent = TheAgent();
  CheckAnswer(Converse(agent.io, *agent.server, bytes));
  // The input's runs end (at most kMaxSlots launches, kMaxCooldownMs of cool-down), their
  // RunDone handled, before the store is emptied for the next input.
  while (agent.server->measuring()) agent.io.run_one();
  agent.io.poll();
  CheckAndEmptyStore(agent.dir, agent.store_dir);
  return 0;
}
