#include <doctest/doctest.h>

#include "host/cli/cmd_agent.h"
#include "host/remote/agent_locator.h"
#include "host/remote/agent_registry.h"
#include "host/remote/deploy.h"
#include "host/remote/ssh.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("agent options: the actions") {
  CHECK(ParseAgentArgs({"status"}).ok());
  CHECK_FALSE(ParseAgentArgs({"reboot"}).ok());
}

TEST_CASE("khost agent: add, list, status, remove, deploy and tune-system arguments") {
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
  auto tune = ParseAgentArgs({"tune-system", "k1", "--reset"});
  REQUIRE(tune.ok());
  CHECK(tune->agent == "k1");
  CHECK(tune->reset);
  CHECK_FALSE(ParseAgentArgs({"tune-system", "--agent", "h:1"})->reset);
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
                                           {"status", "--reset"},
                                           {"tune-system", "k1", "--agent", "h:1"},
                                           {"deploy", "k1", "--ssh", "h"}}) {
    CAPTURE(bad.front());
    CHECK_FALSE(ParseAgentArgs(bad).ok());
  }
}

}  // namespace
}  // namespace ktune::host
