// Fuzzes khost's side of a run (host/remote/run_receiver.h ReceiveRun over
// host/remote/agent_client.h): what an agent sends back for a RunRequest or a FetchRun --
// RunQueued, RunAccepted (for a fetch, with the request the run was asked), rows, profiles,
// RunDone, errors -- read through khost's framing and written into the run's results, samples and
// metadata files.
//
// Input: one options byte (bit 0: a FetchRun, so the request comes from the agent; else a
// RunRequest of two variants that records events), then the bytes the agent sends after its
// HelloReply. The agent is one end of a socketpair whose other end khost's connection takes
// (AgentConnection::Adopt: no port, no thread). Everything the agent says, HelloReply and input,
// is in the socket, and its sending side shut, before khost starts: khost, which speaks only
// after reading the agent's answers, sees the same bytes as from a live agent, and never waits
// (the end of the input reads as the agent closing). Inputs are at most kMaxInputBytes, which
// the socket's buffer holds; what khost sends (its Hello and the request) stays in the other
// direction's buffer and is checked after.
//
// Asserts, beyond no crash, no sanitizer report, no leak, no hang, and no exception escaping:
// - khost spoke first with a Hello, in whole frames;
// - whatever the agent sent, the files khost wrote read back: the results file parses and holds
//   the rows ReceiveRun returned, as its readers merge a repetition's lines (MergeRepetitions),
//   each with as many values; the metadata reads, and so does the samples file when there is
//   one.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/results.h"
#include "host/remote/run_receiver.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

constexpr const char* kRunId = "r1";

// Bytes of the input beyond which the target skips it: the agent's side of the socketpair must
// hold all of it at once (a unix socket's default buffer is 208 KiB).
constexpr size_t kMaxInputBytes = 128 << 10;

// What khost sent, read from the agent's end once khost closed: whole frames, a Hello first.
void CheckHostSpoke(int agent_end) {
  FrameCodec codec;
  char buffer[1 << 16];
  ssize_t n;
  while ((n = ::read(agent_end, buffer, sizeof buffer)) > 0) {
    codec.Feed(std::string_view(buffer, static_cast<size_t>(n)));
  }
  auto first = codec.Next();
  FUZZ_CHECK(first.ok() && first->has_value() && (*first)->has_hello());
  for (;;) {
    auto next = codec.Next();
    FUZZ_CHECK(next.ok());
    if (!next->has_value()) break;
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

  if (size - 1 > kMaxInputBytes) return -1;  // not kept: see kMaxInputBytes
  int pair[2];
  FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
  const ScopedFd agent_end(pair[0]);
  wire::Envelope reply;
  reply.mutable_hello_reply()->set_protocol_version(kProtocolVersion);
  reply.mutable_hello_reply()->set_agent_version("fuzz");
  // Non-blocking: should the socket hold less than the input after all, the input is skipped
  // rather than the target waiting for a reader that comes only after.
  FUZZ_CHECK(::fcntl(agent_end.get(), F_SETFL, O_NONBLOCK) == 0);
  if (!WriteAll(agent_end.get(),
                FrameCodec().Encode(reply).value() +
                    std::string(reinterpret_cast<const char*>(data) + 1, size - 1),
                "khost")
           .ok()) {
    return -1;
  }
  FUZZ_CHECK(::shutdown(agent_end.get(), SHUT_WR) == 0);

  std::vector<RepetitionRow> rows;
  bool received = false;
  {
    auto conn = AgentConnection::Adopt(pair[1], "the fuzz target's agent");
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
    if (run.ok()) rows = run->run.rows;
  }  // khost's end closes here
  CheckHostSpoke(agent_end.get());

  auto text = ReadFile(results);
  FUZZ_CHECK(text.ok());
  auto file = ParseResultsCsv(*text);
  FUZZ_CHECK(file.ok());
  if (received) {
    // As the file's readers take it: a repetition completed later, its lines after other rows',
    // is one row.
    const MergedRows merged = MergeRepetitions(file->rows);
    FUZZ_CHECK(merged.rows.size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      FUZZ_CHECK(merged.rows[i].variant_index == rows[i].variant_index &&
                 merged.rows[i].repetition == rows[i].repetition &&
                 merged.rows[i].values.size() == rows[i].values.size());
    }
  }
  FUZZ_CHECK(ReadRunMeta(RunMetaPath(results)).ok());
  if (auto samples = ReadFile(SamplesPath(results)); samples.ok()) {
    FUZZ_CHECK(ParseSamples(*samples, SamplesPath(results)).ok());
  }
  return 0;
}
