// The agent registry, ssh's command lines and deploy's pure parts: names, targets, the config
// document's edits, how --agent NAME resolves, and khost agent's arguments.
#include <doctest/doctest.h>

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

TEST_CASE("a LAVA lab's entry: added, read back as it was") {
  RegisteredAgent lab;
  lab.name = "lab";
  lab.token_file = "/home/me/lab.token";
  lab.lava = LavaSource{.url = "https://lava.example.org",
                        .device_type = "k1",
                        .boards = 4,
                        .job_template = "/home/me/k1.yaml",
                        .job_minutes = 90};
  auto doc = WithAgent(nlohmann::json::object(), lab, false);
  REQUIRE(doc.ok());
  auto agents = ReadRegistry(*doc, "c.json");
  REQUIRE(agents.ok());
  REQUIRE(agents->size() == 1);
  const RegisteredAgent& a = agents->front();
  REQUIRE(a.lava);
  CHECK_FALSE(a.addr);
  CHECK_FALSE(a.ssh);
  CHECK(a.token_file == "/home/me/lab.token");
  CHECK(a.lava->url == "https://lava.example.org");
  CHECK(a.lava->device_type == "k1");
  CHECK(a.lava->boards == 4);
  CHECK(a.lava->job_template == "/home/me/k1.yaml");
  CHECK(a.lava->job_minutes == 90);
  CHECK(a.Describe() == "LAVA https://lava.example.org, 4 × k1, job /home/me/k1.yaml");
  // Boards and minutes default to 1 and 60.
  agents = ReadRegistry(ParseConfigText(R"({"agents": {"lab": {"lava": "http://l",)"
                                        R"( "device_type": "q", "job_template": "/j"}}})",
                                        "c.json")
                            .value(),
                        "c.json");
  REQUIRE(agents.ok());
  CHECK(agents->front().lava->boards == 1);
  CHECK(agents->front().lava->job_minutes == 60);
}

TEST_CASE("a malformed registry entry is an error naming the file and the agent") {
  auto message = [](const std::string& text) {
    return ReadRegistry(ParseConfigText(text, "c.json").value(), "c.json").status().message();
  };
  CHECK(message(R"({"agents": []})") == "c.json: \"agents\" must be an object");
  CHECK(message(R"({"agents": {"k1": {}}})").find("agent k1: needs") != std::string::npos);
  CHECK(message(R"({"agents": {"k1": {"addr": "h:1", "ssh": "h"}}})") ==
        "c.json: agent k1: needs one of \"addr\", \"ssh\" or \"lava\"");
  CHECK(message(R"({"agents": {"lab": {"lava": "http://l", "job_template": "/j"}}})") ==
        "c.json: agent lab: \"device_type\" must be a non-empty string");
  CHECK(message(R"({"agents": {"lab": {"lava": "http://l", "device_type": "a&b",)"
                R"( "job_template": "/j"}}})")
            .find("c.json: agent lab: LAVA device type 'a&b'") == 0);
  CHECK(message(R"({"agents": {"lab": {"lava": "http://l", "device_type": "q",)"
                R"( "job_template": "/j", "boards": 0}}})") ==
        "c.json: agent lab: \"boards\" must be a whole number from 1 to 64");
  CHECK(message(R"({"agents": {"lab": {"lava": "http://l", "device_type": "q",)"
                R"( "job_template": "/j", "job_minutes": 1.5}}})") ==
        "c.json: agent lab: \"job_minutes\" must be a whole number from 1 to 10080");
  CHECK(message(R"({"agents": {"k1": {"ssh": "h", "agent_port": 70000}}})").find("agent_port") !=
        std::string::npos);
  CHECK(message(R"({"agents": {"k1": {"ssh": "h", "ssh_options": ["x"]}}})").find("KEY=VALUE") !=
        std::string::npos);
  CHECK(message(R"({"agents": {"a:b": {"ssh": "h"}}})").find("agent name") != std::string::npos);
  CHECK(ParseConfigText("[1]", "c.json").status().message() == "c.json must hold a JSON object");
}

}  // namespace
}  // namespace ktune::host
