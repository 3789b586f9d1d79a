// Fuzzes khost's side of a run (host/remote/run_receiver.h ReceiveRun over
// host/remote/agent_client.h): what an agent sends back for a RunRequest or a FetchRun --
// RunQueued, RunAccepted (for a fetch, with the request the run was asked), rows, profiles,
// RunDone, errors -- read through khost's framing and written into the run's results, samples and
// metadata files.
//
// Input: one options byte (bit 0: a FetchRun, so the request comes from the agent; else a
// RunRequest of two variants that records events), then the bytes the agent sends after its
// HelloReply. A thread plays the agent on loopback: it reads the Hello, answers it, sends the
// input, and reads until khost closes the connection. khost runs on a thread of its own too: both
// block libFuzzer's watchdog signal (SIGALRM, for -timeout), which would interrupt their blocking
// socket calls, as nothing interrupts khost's (it has no signal handlers).
//
// Asserts, beyond no crash, no sanitizer report, no leak, no hang, and no exception escaping:
// - whatever the agent sent, the files khost wrote read back: the results file parses and holds
//   the rows ReceiveRun returned, the metadata reads, and so does the samples file when there is
//   one.
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include "common/fs.h"
#include "common/results.h"
#include "host/remote/run_receiver.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

constexpr const char* kRunId = "r1";

// A listening loopback socket on a port of its own: a new one per input, as connections to one
// port would meet the agent side's TIME_WAITs of earlier inputs.
ScopedFd Listener(uint16_t* port) {
  ScopedFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  FUZZ_CHECK(fd.valid() && ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) == 0);
  FUZZ_CHECK(::listen(fd.get(), 1) == 0);
  FUZZ_CHECK(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  *port = ntohs(addr.sin_port);
  return fd;
}

// Leaves libFuzzer's watchdog signal to the fuzzing thread.
void BlockWatchdogSignal() {
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  FUZZ_CHECK(::pthread_sigmask(SIG_BLOCK, &alarm, nullptr) == 0);
}

// The agent: answers the Hello, sends `bytes`, then reads until khost closes.
void PlayAgent(int listener, const std::string& bytes) {
  BlockWatchdogSignal();
  ScopedFd conn(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  FUZZ_CHECK(conn.valid());
  FrameCodec codec;
  char buffer[1 << 16];
  for (;;) {
    auto next = codec.Next();
    FUZZ_CHECK(next.ok());
    if (next->has_value()) break;  // the Hello
    const ssize_t n = ::read(conn.get(), buffer, sizeof buffer);
    FUZZ_CHECK(n > 0);
    codec.Feed(std::string_view(buffer, static_cast<size_t>(n)));
  }
  wire::Envelope reply;
  reply.mutable_hello_reply()->set_protocol_version(kProtocolVersion);
  reply.mutable_hello_reply()->set_agent_version("fuzz");
  // khost may close before reading it all: what it does not read is not an error here.
  (void)WriteAll(conn.get(), FrameCodec().Encode(reply).value() + bytes, "khost");
  ::shutdown(conn.get(), SHUT_WR);
  while (::read(conn.get(), buffer, sizeof buffer) > 0) {
  }
}

wire::RunRequest Request() {
  wire::RunRequest r;
  r.set_run_id(kRunId);
  r.set_bundle_id(std::string(64, 'a'));
  for (const char* name : {"a.elf", "b.elf"}) {
    auto* v = r.add_variants();
    v->set_name(name);
    v->set_elf_path(std::string("k/run/bin/") + name);
    auto* p = v->add_params();
    p->set_name("B");
    p->set_value("4");
  }
  r.add_events("cycles");
  r.add_record("cycles");
  r.set_repetitions(2);
  return r;
}

}  // namespace
}  // namespace ktune::host

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  if (size < 1) return 0;
  const bool fetch = data[0] & 1;
  const std::string results = FuzzScratchDir() + "/" + kRunId + ".csv";
  for (const std::string& path : {results, SamplesPath(results), RunMetaPath(results)}) {
    ::unlink(path.c_str());
  }

  uint16_t port = 0;
  const ScopedFd listener = Listener(&port);
  std::thread agent(PlayAgent, listener.get(),
                    std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  size_t rows = 0;
  bool received = false;
  std::thread host([&] {
    BlockWatchdogSignal();
    auto conn = AgentConnection::Connect({"127.0.0.1", port});
    FUZZ_CHECK_OK(conn);
    ReceiveSetup setup;
    setup.command = "fuzz";
    setup.results_path = results;
    setup.meta.run_id = kRunId;
    setup.meta.kernel = "k";
    wire::Envelope ask;
    if (fetch) {
      ask.mutable_fetch_run()->set_run_id(kRunId);
    } else {
      setup.request = Request();
      *ask.mutable_run_request() = *setup.request;
    }
    auto run = ReceiveRun(**conn, ask, setup);
    received = run.ok();
    if (run.ok()) rows = run->run.rows.size();
  });
  host.join();
  agent.join();

  auto text = ReadFile(results);
  FUZZ_CHECK(text.ok());
  auto file = ParseResultsCsv(*text);
  FUZZ_CHECK(file.ok());
  if (received) FUZZ_CHECK(file->rows.size() == rows);
  FUZZ_CHECK(ReadRunMeta(RunMetaPath(results)).ok());
  if (auto samples = ReadFile(SamplesPath(results)); samples.ok()) {
    FUZZ_CHECK(ParseSamples(*samples, SamplesPath(results)).ok());
  }
  return 0;
}
