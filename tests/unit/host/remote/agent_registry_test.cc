// The agent registry, ssh's command lines and deploy's pure parts: names, targets, the config
// document's edits, how --agent NAME resolves, and khost agent's arguments.
#include <doctest/doctest.h>

#include "host/cli/command.h"
#include "host/remote/agent_locator.h"
#include "host/remote/agent_registry.h"
#include "host/remote/deploy.h"
#include "host/remote/ssh.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE(
    "ssh targets: [USER@]HOST[:PORT], IPv6 in brackets, nothing ssh would take as an option") {
  auto t = ParseSshTarget("me@k1.lab:2222");
  REQUIRE(t.ok());
  CHECK(t->user == "me");
  CHECK(t->host == "k1.lab");
  CHECK(t->port == 2222);
  CHECK(t->Destination() == "me@k1.lab");
  CHECK(t->ToString() == "me@k1.lab:2222");
  CHECK(ParseSshTarget("k1")->port == 0);
  CHECK(ParseSshTarget("k1")->Destination() == "k1");
  auto v6 = ParseSshTarget("root@[::1]:22");
  REQUIRE(v6.ok());
  CHECK(v6->host == "::1");
  CHECK(v6->ToString() == "root@[::1]:22");
  for (const char* bad : {"", "-oProxyCommand=x", "me@-x", "k1:", "k1:0", "k1:65536", "k1:ab",
                          "a b", "me@", "[::1", "[::1]x", "k1;rm"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseSshTarget(bad).ok());
  }
}

TEST_CASE("agent names are words that never read as an address or an option") {
  for (const char* good : {"k1", "lab-board.2", "X_60"}) CHECK(ValidateAgentName(good).ok());
  for (const char* bad : {"", "-k1", ".k1", "k1:7178", "a/b", "a b",
                          "0123456789012345678901234567890123456789012345678901234567890123x"}) {
    CAPTURE(bad);
    CHECK_FALSE(ValidateAgentName(bad).ok());
  }
}

TEST_CASE("the registry: added, read back, replaced only when asked, removed; other keys kept") {
  auto doc = ParseConfigText(R"({"token_file": "/t", "agent": "k1"})", "c.json");
  REQUIRE(doc.ok());
  RegisteredAgent k1;
  k1.name = "k1";
  k1.ssh = ParseSshTarget("me@k1.lab:2222").value();
  k1.agent_port = 7200;
  k1.ssh_options = {"IdentityFile=/keys/lab"};
  auto with = WithAgent(*doc, k1, false);
  REQUIRE(with.ok());
  RegisteredAgent x86;
  x86.name = "x86";
  x86.addr = ParseHostPort("10.0.0.7:7178").value();
  x86.token_file = "/x86.token";
  with = WithAgent(*with, x86, false);
  REQUIRE(with.ok());
  CHECK((*with)["token_file"] == "/t");
  auto agents = ReadRegistry(*with, "c.json");
  REQUIRE(agents.ok());
  REQUIRE(agents->size() == 2);
  const RegisteredAgent& a = (*agents)[0];
  CHECK(a.name == "k1");
  CHECK(a.ssh->ToString() == "me@k1.lab:2222");
  CHECK(a.agent_port == 7200);
  CHECK(a.ssh_options == std::vector<std::string>{"IdentityFile=/keys/lab"});
  CHECK(a.Describe() == "ssh me@k1.lab:2222, agentd on its port 7200");
  CHECK((*agents)[1].addr->ToString() == "10.0.0.7:7178");
  CHECK((*agents)[1].token_file == "/x86.token");
  CHECK(WithAgent(*with, x86, false).status().message().find("already registered") !=
        std::string::npos);
  x86.addr->port = 7179;
  auto replaced = WithAgent(*with, x86, true);
  REQUIRE(replaced.ok());
  CHECK(FindAgent(ReadRegistry(*replaced, "c.json").value(), "x86")->addr->port == 7179);
  auto removed = WithoutAgent(*replaced, "k1");
  REQUIRE(removed.ok());
  CHECK_FALSE(removed->contains("agent"));  // it named the removed agent
  CHECK(ReadRegistry(*removed, "c.json")->size() == 1);
  CHECK(WithoutAgent(*removed, "k1").status().code() == ErrorCode::kNotFound);
}

TEST_CASE("a malformed registry entry is an error naming the file and the agent") {
  auto message = [](const std::string& text) {
    return ReadRegistry(ParseConfigText(text, "c.json").value(), "c.json").status().message();
  };
  CHECK(message(R"({"agents": []})") == "c.json: \"agents\" must be an object");
  CHECK(message(R"({"agents": {"k1": {}}})").find("agent k1: needs") != std::string::npos);
  CHECK(message(R"({"agents": {"k1": {"addr": "h:1", "ssh": "h"}}})").find("not both") !=
        std::string::npos);
  CHECK(message(R"({"agents": {"k1": {"ssh": "h", "agent_port": 70000}}})").find("agent_port") !=
        std::string::npos);
  CHECK(message(R"({"agents": {"k1": {"ssh": "h", "ssh_options": ["x"]}}})").find("KEY=VALUE") !=
        std::string::npos);
  CHECK(message(R"({"agents": {"a:b": {"ssh": "h"}}})").find("agent name") != std::string::npos);
  CHECK(ParseConfigText("[1]", "c.json").status().message() == "c.json must hold a JSON object");
}

TEST_CASE("--agent NAME resolves through the registry; an unknown name is an error") {
  const std::string config =
      R"({"agent": "k1", "agents": {"k1": {"ssh": "me@k1"}, "x86": {"addr": "h:5"}}})";
  auto k1 = ChooseAgent("", "", config, "c.json");
  REQUIRE(k1.ok());
  REQUIRE(k1->registered.has_value());
  CHECK(k1->registered->ssh->host == "k1");
  CHECK_FALSE(k1->address.has_value());
  auto x86 = ChooseAgent("x86", "", config, "c.json");
  REQUIRE(x86.ok());
  CHECK(x86->address->port == 5);
  CHECK(ChooseAgent("", "x86", config, "c.json")->source == "KTUNE_AGENT");
  const Status unknown = ChooseAgent("k2", "", config, "c.json").status();
  CHECK(unknown.code() == ErrorCode::kNotFound);
  CHECK(unknown.message() ==
        "--agent: no agent named 'k2' (khost agent list shows the registered ones; an address "
        "is HOST:PORT)");
  // An address needs no registry, and a broken config file does not stop it.
  CHECK(ChooseAgent("h:1", "", "{broken", "c.json")->address->port == 1);
}

TEST_CASE("khost agent: add, list, status, remove and deploy arguments") {
  auto add = ParseAgentArgs({"add", "k1", "--ssh", "me@k1:22", "--ssh-option", "IdentityFile=/k",
                             "--agent-port", "7200"});
  REQUIRE(add.ok());
  CHECK(add->entry.name == "k1");
  CHECK(add->entry.ssh->port == 22);
  CHECK(add->entry.agent_port == 7200);
  CHECK(add->entry.ssh_options == std::vector<std::string>{"IdentityFile=/k"});
  auto addr = ParseAgentArgs({"add", "x86", "--addr", "h:5", "--token-file", "/t", "--replace"});
  REQUIRE(addr.ok());
  CHECK(addr->entry.token_file == "/t");
  CHECK(addr->replace);
  CHECK(ParseAgentArgs({"status"}).ok());
  CHECK(ParseAgentArgs({"status", "k1"})->agent == "k1");
  CHECK(ParseAgentArgs({"list"}).ok());
  CHECK(ParseAgentArgs({"remove", "k1"})->entry.name == "k1");
  auto deploy = ParseAgentArgs({"deploy", "k1", "--systemd", "--store", "/s", "--bin-dir", "/b"});
  REQUIRE(deploy.ok());
  CHECK(deploy->deploy.systemd);
  CHECK(deploy->deploy.store == "/s");
  CHECK(deploy->deploy.bin_dir == "/b");
  for (const Args& bad : std::vector<Args>{{"reboot"},
                                           {"add", "k1"},
                                           {"add", "k1", "--addr", "h:1", "--ssh", "h"},
                                           {"add", "k1", "--addr", "h:1", "--agent-port", "9"},
                                           {"add", "k1", "--ssh", "h", "--token-file", "/t"},
                                           {"add", "k1", "--ssh", "h", "--ssh-option", "x"},
                                           {"add", "a:b", "--ssh", "h"},
                                           {"remove"},
                                           {"list", "k1"},
                                           {"status", "k1", "--agent", "h:1"},
                                           {"status", "--systemd"},
                                           {"deploy", "k1", "--ssh", "h"}}) {
    CAPTURE(bad.front());
    CHECK_FALSE(ParseAgentArgs(bad).ok());
  }
}

TEST_CASE("ssh's command line: the user's options first, then ktune's, the port, the target") {
  SshSpec spec{ParseSshTarget("me@k1:2222").value(), {"IdentityFile=/k"}, "/c"};
  const std::vector<std::string> argv = SshArgv(spec, {"-O", "check"});
  const std::vector<std::string> expected = {"ssh",
                                             "-o",
                                             "ControlMaster=no",
                                             "-o",
                                             "RemoteCommand=none",
                                             "-o",
                                             "RequestTTY=no",
                                             "-o",
                                             "IdentityFile=/k",
                                             "-o",
                                             "BatchMode=yes",
                                             "-o",
                                             "ConnectTimeout=10",
                                             "-o",
                                             "ServerAliveInterval=10",
                                             "-o",
                                             "ServerAliveCountMax=3",
                                             "-o",
                                             "LogLevel=ERROR",
                                             "-o",
                                             "ControlPath=/c/%C",
                                             "-p",
                                             "2222",
                                             "-O",
                                             "check",
                                             "me@k1"};
  CHECK(argv == expected);
  CHECK(SshArgv(spec, {}, "uname -m").back() == "uname -m");
  const std::vector<std::string> master = SshArgv(spec, {"-o", "ControlMaster=auto", "-N"});
  CHECK(std::count(master.begin(), master.end(), "ControlMaster=no") == 0);
  spec.target.port = 0;
  const std::vector<std::string> no_port = SshArgv(spec, {});
  CHECK(std::find(no_port.begin(), no_port.end(), "-p") == no_port.end());
}

TEST_CASE("deploy: the ELF's architecture, where agentd is looked for, the systemd unit") {
  std::string head(64, '\0');
  head.replace(0, 6,
               "\x7f"
               "ELF\x02\x01");
  head[18] = static_cast<char>(243);
  CHECK(ElfArch(head) == "riscv64");
  head[18] = 62;
  CHECK(ElfArch(head) == "x86_64");
  head[18] = static_cast<char>(183);
  CHECK(ElfArch(head) == "aarch64");
  head[18] = 3;  // i386
  CHECK(ElfArch(head) == "");
  CHECK(ElfArch("#!/bin/sh\n") == "");
  head[4] = 1;  // 32-bit
  CHECK(ElfArch(head) == "");
  CHECK(AgentdCandidates("riscv64", "/b", "/s", "x86_64") ==
        std::vector<std::string>{"/b/agentd-riscv64", "/s/build-agent-riscv64/bin/agentd"});
  CHECK(AgentdCandidates("x86_64", "/b", "/s", "x86_64").back() == "/b/agentd");
  CHECK(RenderUnit("ExecStart=@AGENTD@ --listen 127.0.0.1:@PORT@ --store @STORE@ # @PORT@", "%h/a",
                   7178, "/s") == "ExecStart=%h/a --listen 127.0.0.1:7178 --store /s # 7178");
}

TEST_CASE("a board's /proc/net/tcp tables say whether anything listens on a port") {
  // Rows of this machine's tables: a listener on 0.0.0.0:2024 (07E8), an established connection
  // from port 43396 (A984), a listener on [::1]:7178 (1C0A) in tcp6.
  const std::string table =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
      "   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0\n"
      "   1: 0100007F:A984 0100007F:DD6F 06 00000000:00000000 03:00000014 00000000     0\n"
      "   0: 00000000000000000000000001000000:1C0A 00000000000000000000000000000000:0000 0A "
      "00000000:00000000 00:00000000 00000000     0\n";
  CHECK(ListensOnPort(table, 2024));
  CHECK(ListensOnPort(table, 7178));
  CHECK_FALSE(ListensOnPort(table, 43396));  // connected, not listening
  CHECK_FALSE(ListensOnPort(table, 7179));
  CHECK_FALSE(ListensOnPort("", 7178));
  CHECK_FALSE(ListensOnPort("cat: /proc/net/tcp: No such file or directory\n", 7178));
}

TEST_CASE("the local agent's store: a path others may search, made or still to be made") {
  test::UnitTempDir tmp("ktune-unit", 0711);
  std::filesystem::create_directories(tmp / "open/inner");
  std::filesystem::create_directories(tmp / "closed/inner");
  std::filesystem::permissions(tmp / "closed", std::filesystem::perms(0700));
  CHECK(SearchableByOthers(tmp / "open/inner"));
  CHECK(SearchableByOthers(tmp / "open/inner/not/made/yet"));
  CHECK_FALSE(SearchableByOthers(tmp / "closed/inner/store"));
  CHECK_FALSE(SearchableByOthers(tmp / "closed"));
}

}  // namespace
}  // namespace ktune::host
