// khost as users run it: real khost and agentd processes, the seed's layout on disk, and the
// bad inputs that must end in one clear error line and a non-zero exit without losing results.
#include <doctest/doctest.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/fs.h"
#include "common/hash.h"
#include "common/results.h"
#include "common/version.h"
#include "protocol/frame_codec.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

const std::vector<test::TestVariant> kThree = {
    {"ok.elf",
     {{"BLOCK_SIZE_M", 4}, {"BLOCK_SIZE_N", 16}},
     {"k/run/test_data/matrix_4x4_1.txt", "2"}},
    {"segv.elf", {{"BLOCK_SIZE_M", 8}, {"BLOCK_SIZE_N", 16}}, {}},
    {"sci.elf", {{"BLOCK_SIZE_M", 16}, {"BLOCK_SIZE_N", 16}}, {}},
};

struct Cli {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  test::AgentProcess agent{tmp.path() + "/store"};
  Cli() { test::MakeKernelDir(root, "k", kThree); }
  test::CommandResult Khost(std::vector<std::string> args, bool with_agent = true) {
    if (with_agent) {
      args.push_back("--agent");
      args.push_back(agent.address().ToString());
    }
    return test::RunKhost(args, tmp.path());
  }
  std::string ResultsFile() const {
    for (const auto& e : fs::directory_iterator(root + "/k/run/results")) {
      if (e.path().extension() == ".csv") return e.path().string();
    }
    return "";
  }
};

TEST_CASE("run writes results, the seed's perf_stats.csv and a table; report renders them") {
  Cli c;
  auto r = c.Khost({"run", "k", "--root", c.root, "--reps", "2", "--warmup", "0", "--events",
                    "task-clock,page-faults"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("best: 2_sci.elf") != std::string::npos);
  CHECK(r.err.find("1_segv.elf repetition 0 failed: signal:SIGSEGV: about to crash") !=
        std::string::npos);

  const std::string results = c.ResultsFile();
  auto parsed = ParseResultsCsv(ReadFile(results).value());
  REQUIRE(parsed.ok());
  CHECK(parsed->rows.size() == 6);

  auto perf_stats = ReadFile(c.root + "/k/run/perf_stats.csv");
  REQUIRE(perf_stats.ok());
  CHECK(perf_stats->rfind("Timestamp,ELF Name,BLOCK_SIZE_M,BLOCK_SIZE_N,Valid Output,Kernel Time "
                          "(s),Total Time (s),task-clock,page-faults\n",
                          0) == 0);
  CHECK(perf_stats->find(",1_segv.elf,8,16,NO,N/A,") != std::string::npos);
  CHECK(perf_stats->find(",2_sci.elf,16,16,YES,0.000050,") != std::string::npos);

  auto table = c.Khost({"report", "k", "--root", c.root}, false);
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("best: 2_sci.elf") != std::string::npos);
  auto csv = c.Khost({"report", "k", "--root", c.root, "--format", "csv"}, false);
  CHECK(csv.out == ReadFile(results).value());
  auto json = c.Khost({"report", "k", "--root", c.root, "--format", "json"}, false);
  CHECK(json.out.find("\"best\": \"2_sci.elf\"") != std::string::npos);
  auto ps = c.Khost(
      {"report", "k", "--root", c.root, "--format", "perf-stats", "-o", c.tmp.path() + "/ps.csv"},
      false);
  CHECK(ps.exit_code == 0);
  CHECK(ReadFile(c.tmp.path() + "/ps.csv").value() == perf_stats.value());
}

TEST_CASE(
    "groups and events mix in --events; metrics reach the report; events list asks the agent") {
  Cli c;
  auto r = c.Khost({"run", "k", "--root", c.root, "--reps", "2", "--warmup", "0", "--events",
                    "branch,page-faults"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("branch mispredict ratio") != std::string::npos);
  const std::string results = c.ResultsFile();
  const std::string meta_path = fs::path(results).replace_extension(".json").string();
  auto meta = ReadFile(meta_path);
  REQUIRE(meta.ok());
  CHECK(meta->find("\"requested\": [\n    \"branch\",\n    \"page-faults\"") != std::string::npos);
  auto json = c.Khost({"report", "k", "--root", c.root, "--format", "json"}, false);
  CHECK(json.out.find("\"branch mispredict ratio\"") != std::string::npos);
  auto perf_stats = ReadFile(c.root + "/k/run/perf_stats.csv").value();
  CHECK(perf_stats.find(",branches,branch-misses,page-faults\n") != std::string::npos);

  auto list = c.Khost({"events", "list"});
  CHECK(list.exit_code == 0);
  CHECK(list.out.find("event table none (generic events only)") != std::string::npos);
  CHECK(list.out.find("task-clock") != std::string::npos);
  auto groups = c.Khost({"events", "groups", "--cpu-model", "spacemit/x60"}, false);
  CHECK(groups.out.find("metric: L2 miss ratio = l2_miss:u / l2_access:u") != std::string::npos);
}

TEST_CASE("events beyond the counters run in passes, each variant once per pass") {
  // This machine has no PMU, so the agent pretends (named as FAKE) that two events fit; the
  // whole passes path below it runs for real with software events.
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "k", kThree);
  test::AgentProcess agent(tmp.path() + "/store", {"--fake-counter-budget", "2"});
  const std::vector<std::string> events = {"task-clock", "page-faults", "context-switches",
                                           "cpu-migrations", "minor-faults"};
  auto r = test::RunKhost(
      {"run", "k", "--root", root, "--agent", agent.address().ToString(), "--reps", "2", "--warmup",
       "0", "--events", "task-clock,page-faults,context-switches,cpu-migrations,minor-faults"},
      tmp.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("3 passes of events that count together (counter budget 2, fake budget): "
                   "pass 1: task-clock page-faults; pass 2: context-switches cpu-migrations; "
                   "pass 3: minor-faults") != std::string::npos);
  std::string results;
  for (const auto& e : fs::directory_iterator(root + "/k/run/results")) {
    if (e.path().extension() == ".csv") results = e.path().string();
  }
  auto parsed = ParseResultsCsv(ReadFile(results).value());
  REQUIRE(parsed.ok());
  REQUIRE(parsed->rows.size() == 3 * 3 * 2);  // variants x passes x repetitions
  const std::vector<std::vector<std::string>> pass_events = {
      {"page-faults"}, {"context-switches", "cpu-migrations"}, {"minor-faults"}};
  for (const RepetitionRow& row : parsed->rows) {
    CAPTURE(row.pass);
    REQUIRE(row.pass < 3);
    CHECK(row.Find("task-clock") != nullptr);  // measured in every pass
    for (size_t p = 0; p < 3; ++p) {
      for (const std::string& e : pass_events[p])
        CHECK((row.Find(e) != nullptr) == (p == row.pass));
    }
  }
  auto json = test::RunKhost({"report", "k", "--root", root, "--format", "json"}, tmp.path());
  for (const std::string& e : events) CHECK(json.out.find("\"" + e + "\": {") != std::string::npos);
  auto meta = ReadFile(fs::path(results).replace_extension(".json").string()).value();
  CHECK(meta.find("\"plan\": \"fake budget\"") != std::string::npos);
}

TEST_CASE("--version: khost and agentd say their version and the commit they were built from") {
  test::TempDir tmp;
  const auto khost = test::RunKhost({"--version"}, tmp.path());
  CHECK(khost.exit_code == 0);
  CHECK_MESSAGE(khost.out == "khost " KTUNE_VERSION " (commit " KTUNE_COMMIT ")\n", khost.out);
  const auto agentd = test::RunProgram(test::BinDir() + "/agentd", {"--version"}, tmp.path());
  CHECK(agentd.exit_code == 0);
  CHECK_MESSAGE(agentd.out == "agentd " KTUNE_VERSION " (commit " KTUNE_COMMIT ")\n", agentd.out);
}

TEST_CASE("without an agent, khost starts a local one and says so") {
  Cli c;
  auto r = c.Khost({"run", "k", "--root", c.root, "--reps", "1", "--warmup", "0"}, false);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("started a local agentd on 127.0.0.1:") != std::string::npos);
  auto push = c.Khost({"push", "k", "--root", c.root}, false);
  CHECK(push.exit_code == 0);
  CHECK(push.out.find("0 blobs sent, 0 of them as deltas") != std::string::npos);  // kept
  auto status = c.Khost({"agent", "status"});
  CHECK(status.exit_code == 0);
  CHECK(status.out.find("task-clock") != std::string::npos);
  CHECK(status.out.find("event table: none (generic events only)") != std::string::npos);
}

TEST_CASE("as root, a local agent's store that nobody could reach goes to /var/lib/ktune") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: only root's agentd runs kernels as nobody");
    return;
  }
  // A home closed to others, as Debian's /root is (0700).
  Cli c;
  const std::string home = c.tmp.path() + "/home";
  fs::create_directories(home);
  fs::permissions(home, fs::perms(0700));
  auto r = test::RunKhost({"run", "k", "--root", c.root, "--reps", "1", "--warmup", "0"},
                          c.tmp.path(), {{"XDG_CACHE_HOME", home + "/.cache"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("(store /var/lib/ktune/local-agent)") != std::string::npos);
}

TEST_CASE("bad input: one clear error line, non-zero exit, nothing measured is lost") {
  Cli c;
  REQUIRE(c.Khost({"run", "k", "--root", c.root, "--reps", "1", "--warmup", "0"}).exit_code == 0);
  const std::string results = c.ResultsFile();
  const std::string before = HashFile(results).value();
  auto one_line = [](const test::CommandResult& r, const std::string& text) {
    CHECK(r.exit_code != 0);
    REQUIRE_MESSAGE(r.ErrLines().size() == 1, r.err);
    CHECK_MESSAGE(r.ErrLines()[0].find(text) != std::string::npos, r.err);
  };

  one_line(c.Khost({"run", "nokernel", "--root", c.root}), "no kernel directory");
  fs::create_directories(c.root + "/empty");
  one_line(c.Khost({"push", "empty", "--root", c.root}), "cannot read");
  fs::create_directories(c.root + "/bad/run");
  std::ofstream(c.root + "/bad/run/configs.json") << "{\"variants\": [";
  one_line(c.Khost({"push", "bad", "--root", c.root}), "not valid JSON");
  fs::create_directories(c.root + "/gone/run");
  std::ofstream(c.root + "/gone/run/configs.json")
      << R"({"variants":[{"BLOCK_SIZE_M":4,"elf_path":"gone/run/bin/x.elf"}]})";
  one_line(c.Khost({"run", "gone", "--root", c.root}), "x.elf does not exist");
  const std::string dead = "127.0.0.1:" + std::to_string(test::UnusedPort());
  auto unreachable = test::RunKhost({"run", "k", "--root", c.root, "--agent", dead}, c.tmp.path());
  one_line(unreachable, "cannot reach agent at " + dead);
  auto env_bad =
      test::RunKhost({"push", "k", "--root", c.root}, c.tmp.path(), {{"KTUNE_AGENT", "nonsense"}});
  one_line(env_bad, "KTUNE_AGENT");
  one_line(c.Khost({"run", "k", "--root", c.root, "--events", "cylces"}),
           "unknown event 'cylces'; nearest: cycles");
  one_line(c.Khost({"run", "k", "--root", c.root, "--cpu-model", "acme/z1"}),
           "no event table for CPU model 'acme/z1'");
  one_line(c.Khost({"run", "k", "--root", c.root, "--events", "vector"}),
           "group vector is not available for generic events");
  auto usage = c.Khost({"run", "k", "--reps", "zero"});
  CHECK(usage.exit_code == 2);
  CHECK(c.Khost({"frobnicate"}, false).exit_code == 2);
  one_line(c.Khost({"report", "k", "--root", c.root, "--run", "nosuchrun"}, false), "no run");
  one_line(c.Khost({"report", "nokernel", "--root", c.root}, false), "no results");

  CHECK(HashFile(results).value() == before);
  // The agent's copy of that run is intact too.
  const std::string run_id = fs::path(results).stem().string();
  auto agent_copy =
      ParseResultsCsv(ReadFile(c.tmp.path() + "/store/runs/" + run_id + "/results.csv").value());
  REQUIRE(agent_copy.ok());
  CHECK(agent_copy->rows.size() == 3);
}

TEST_CASE("a CPU the agent does not have is refused before anything runs") {
  Cli c;
  auto r = c.Khost({"run", "k", "--root", c.root, "--cpu", "4096"});
  CHECK(r.exit_code == 1);
  REQUIRE(r.ErrLines().size() == 1);
  CHECK(r.ErrLines()[0].find("--cpu 4096: agent ") != std::string::npos);
  CHECK(r.ErrLines()[0].find(" CPUs (0-") != std::string::npos);
  CHECK_FALSE(fs::exists(c.root + "/k/run/results"));
}

TEST_CASE("khost refuses an agent that speaks another protocol version") {
  // A fake peer, standing in for a future agentd: answers Hello claiming protocol 999.
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
  const uint16_t port = acceptor.local_endpoint().port();
  std::thread peer([&] {
    asio::ip::tcp::socket s = acceptor.accept();
    FrameCodec codec;
    char buf[4096];
    while (true) {
      codec.Feed(std::string_view(buf, s.read_some(asio::buffer(buf))));
      auto msg = codec.Next();
      if (msg.ok() && msg->has_value()) break;
    }
    wire::Envelope reply;
    reply.mutable_hello_reply()->set_protocol_version(999);
    reply.mutable_hello_reply()->set_agent_version("9.9");
    asio::write(s, asio::buffer(codec.Encode(reply).value()));
  });
  test::TempDir home;
  auto r = test::RunKhost({"agent", "status", "--agent", "127.0.0.1:" + std::to_string(port)},
                          home.path());
  peer.join();
  CHECK(r.exit_code == 1);
  REQUIRE(r.ErrLines().size() == 1);
  CHECK(r.ErrLines()[0].find("speaks protocol 999") != std::string::npos);
}

TEST_CASE("a corrupt results file is reported, not misread") {
  Cli c;
  REQUIRE(c.Khost({"run", "k", "--root", c.root, "--reps", "1", "--warmup", "0"}).exit_code == 0);
  const std::string results = c.ResultsFile();
  std::ofstream(results, std::ios::app) << "1,garbage\n";
  auto r = c.Khost({"report", "k", "--root", c.root}, false);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("results line") != std::string::npos);
}

}  // namespace
}  // namespace ktune
