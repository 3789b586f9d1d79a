// Agents on boards reached by ssh, against an sshd of the test's own on loopback
// (tests/integration/ssh_server.h): the registry, a run through the port forward (torn down when
// khost ends, the master connection reused), deploy, and the bad inputs of each.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/utsname.h>

#include <boost/asio.hpp>
#include <filesystem>
#include <regex>

#include "common/fs.h"
#include "common/strings.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"
#include "tests/integration/ssh_server.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

using test::Contains;

std::string HostArch() {
  utsname u{};
  return ::uname(&u) == 0 ? u.machine : "";
}

std::string ResultsFile(const std::string& root) {
  if (!fs::exists(root + "/k/run/results")) return "";
  for (const auto& e : fs::directory_iterator(root + "/k/run/results")) {
    if (e.path().extension() == ".csv") return e.path().string();
  }
  return "";
}

struct Board {
  test::TempDir tmp;
  std::string home = tmp.path();
  std::string root = tmp.path() + "/work";
  std::unique_ptr<test::SshServer> sshd;
  Board() {
    fs::create_directories(tmp.path() + "/ssh");
    sshd = std::make_unique<test::SshServer>(tmp.path() + "/ssh");
  }
  test::CommandResult Khost(const std::vector<std::string>& args) {
    return test::RunKhost(args, home);
  }
};

TEST_CASE(
    "an agent over ssh: registered, its status and a run through a forward that ends "
    "with khost; the master connection is reused") {
  Board b;
  if (!b.sshd->available()) {
    MESSAGE("skipped: " << b.sshd->why());
    return;
  }
  test::AgentProcess agent(b.tmp.path() + "/store");
  auto add = b.Khost(b.sshd->AddArgs("b1", agent.address().port));
  REQUIRE_MESSAGE(add.exit_code == 0, add.err);
  auto list = b.Khost({"agent", "list"});
  CHECK(Contains(list.out, "b1\tssh " + b.sshd->target() + ", agentd on its port " +
                               std::to_string(agent.address().port)));

  auto status = b.Khost({"agent", "status", "b1"});
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  std::smatch m;
  REQUIRE(std::regex_search(status.out, m, std::regex("forwarded to (/\\S+\\.sock)\\)")));
  // In a directory only this user may enter.
  CHECK((fs::status(fs::path(m[1].str()).parent_path()).permissions() & fs::perms::all) ==
        fs::perms::owner_all);
  CHECK_FALSE(fs::exists(m[1].str()));  // cancelled as khost ended
  CHECK(b.sshd->Connections() == 1);    // the master, kept for the next command

  test::MakeKernelDir(b.root, "k",
                      {{"ok.elf", {{"B", 1}}, {"k/run/test_data/matrix_4x4_1.txt"}},
                       {"ok.elf", {{"B", 2}}, {"k/run/test_data/matrix_4x4_1.txt"}}});
  auto run = b.Khost({"run", "k", "--root", b.root, "--agent", "b1", "--reps", "2", "--warmup", "0",
                      "--events", "task-clock"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(test::RowsIn(ResultsFile(b.root)) == 4);
  CHECK(b.sshd->Connections() == 1);  // the same master again

  auto removed = b.Khost({"agent", "remove", "b1"});
  CHECK(removed.exit_code == 0);
  CHECK(Contains(b.Khost({"agent", "list"}).out, "no agents registered"));
}

TEST_CASE("deploy: agentd copied once, started on the board's loopback, its version checked") {
  Board b;
  if (!b.sshd->available()) {
    MESSAGE("skipped: " << b.sshd->why());
    return;
  }
  const uint16_t port = test::UnusedPort();
  REQUIRE(b.Khost(b.sshd->AddArgs("b2", port)).exit_code == 0);
  const std::string store = b.tmp.path() + "/board-store", bin = b.tmp.path() + "/board-bin";
  struct StopAgent {  // the deployed agentd is a daemon: stopped by the pid it wrote
    std::string pid_file;
    ~StopAgent() {
      if (auto pid = ReadFile(pid_file); pid.ok()) ::kill(std::stoi(*pid), SIGTERM);
    }
  } stop{store + "/agentd.pid"};
  const std::vector<std::string> deploy = {
      "agent",   "deploy", "b2",        "--agentd", test::BinDir() + "/agentd",
      "--store", store,    "--bin-dir", bin};
  auto first = b.Khost(deploy);
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  CHECK(Contains(first.err, "copied " + test::BinDir() + "/agentd"));
  CHECK(Contains(first.out, "runs on b2 (" + HostArch() + ", port " + std::to_string(port) + ")"));
  CHECK(fs::exists(store + "/agentd.pid"));
  size_t copies = 0;
  for (const auto& e : fs::directory_iterator(bin))
    copies += e.path().filename().string().starts_with("agentd-");
  CHECK(copies == 1);

  auto again = b.Khost(deploy);
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK_FALSE(Contains(again.err, "copied"));
  CHECK(Contains(again.out, "already runs on b2"));
  auto status = b.Khost({"agent", "status", "b2"});
  CHECK_MESSAGE(status.exit_code == 0, status.err);
  CHECK(Contains(status.out, "cpu:         " + HostArch()));

  // Another build (a byte appended: another hash, still the same program): the running agentd
  // is stopped and the new one started in its place.
  const std::string other = b.tmp.path() + "/agentd-other";
  REQUIRE(WriteFileAtomic(other, ReadFile(test::BinDir() + "/agentd").value() + '\n', 0755).ok());
  const std::string old_pid = ReadFile(store + "/agentd.pid").value();
  std::vector<std::string> redeploy = deploy;
  redeploy[4] = other;
  auto third = b.Khost(redeploy);
  REQUIRE_MESSAGE(third.exit_code == 0, third.err);
  CHECK(Contains(third.err, "copied " + other));
  CHECK(Contains(third.out, "runs on b2"));
  CHECK_FALSE(fs::exists("/proc/" + std::string(Trim(old_pid))));
  CHECK(ReadFile(store + "/agentd.pid").value() != old_pid);
}

TEST_CASE(
    "ssh agents: unknown name, unreachable host, refused key, no agentd, another "
    "architecture, a token file, deploy without ssh and an sshd that does not forward are one "
    "clear error each") {
  Board b;
  if (!b.sshd->available()) {
    MESSAGE("skipped: " << b.sshd->why());
    return;
  }
  auto one_error = [&](const std::vector<std::string>& args, const std::string& text) {
    auto r = b.Khost(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.ErrLines().size() == 1);
    CHECK(Contains(r.err, text));
  };
  test::MakeKernelDir(b.root, "k", {{"ok.elf", {{"B", 1}}, {"k/run/test_data/matrix_4x4_1.txt"}}});
  one_error({"run", "k", "--root", b.root, "--agent", "nosuch"}, "no agent named 'nosuch'");

  REQUIRE(b.Khost({"agent", "add", "down", "--ssh",
                   "root@127.0.0.1:" + std::to_string(test::UnusedPort())})
              .exit_code == 0);
  one_error({"agent", "status", "down"}, "Connection refused");

  REQUIRE(b.Khost(b.sshd->AddArgsWithWrongKey("badkey", 7178)).exit_code == 0);
  one_error({"agent", "status", "badkey"}, "Permission denied");

  REQUIRE(b.Khost(b.sshd->AddArgs("noagent", test::UnusedPort())).exit_code == 0);
  one_error({"agent", "status", "noagent"}, "no agentd answers on its port");

  // A bundle for riscv64 on an x86_64 board: refused before anything is pushed or run.
  test::AgentProcess agent(b.tmp.path() + "/store");
  REQUIRE(b.Khost(b.sshd->AddArgs("x86", agent.address().port)).exit_code == 0);
  const std::string riscv_elves = b.tmp.path() + "/riscv-elves";
  fs::create_directories(riscv_elves);
  std::string elf = ReadFile(test::ElvesDir() + "/ok.elf").value();
  elf[18] = static_cast<char>(243);  // e_machine: EM_RISCV
  REQUIRE(WriteFileAtomic(riscv_elves + "/ok.elf", elf, 0755).ok());
  test::MakeKernelDir(b.root, "rv", {{"ok.elf", {{"B", 1}}, {}}}, riscv_elves);
  one_error({"run", "rv", "--root", b.root, "--agent", "x86"},
            "variant 0_ok.elf is built for riscv64 but agent x86 is " + HostArch());
  CHECK(ResultsFile(b.root + "/rv").empty());
  // Over ssh agentd takes no token: a --token-file given for such a board is a mistake.
  one_error({"push", "k", "--root", b.root, "--agent", "x86", "--token-file", "/no/token"},
            "board x86 is reached over ssh, where agentd takes no token");

  REQUIRE(b.Khost({"agent", "add", "tcp", "--addr", "127.0.0.1:7178"}).exit_code == 0);
  one_error({"agent", "deploy", "tcp"}, "deploy needs ssh");

  // A board whose sshd forwards nothing: agentd runs, and the error says where it stops.
  fs::create_directories(b.tmp.path() + "/ssh-noforward");
  test::SshServer closed(b.tmp.path() + "/ssh-noforward", false);
  REQUIRE(closed.available());
  REQUIRE(b.Khost(closed.AddArgs("closed", agent.address().port)).exit_code == 0);
  one_error({"agent", "status", "closed"},
            "the board's sshd does not forward to it (AllowTcpForwarding");
}

}  // namespace
}  // namespace ktune
