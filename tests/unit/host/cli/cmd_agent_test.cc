#include <doctest/doctest.h>

#include "common/fs.h"
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
  {
    test::UnitTempDir tmp;
    const std::string job = tmp / "job.yaml";
    REQUIRE(WriteFileAtomic(job,
                            "# ktune-address: 127.0.0.1:{{KTUNE_PORT}}\n"
                            "job_name: {{KTUNE_JOB_NAME}}\n")
                .ok());
    auto lab = ParseAgentArgs({"add", "lab", "--lava", "https://lava.example.org", "--device-type",
                               "k1", "--job-template", job, "--boards", "3", "--token-file", "/t"});
    REQUIRE(lab.ok());
    REQUIRE(lab->entry.lava);
    CHECK(lab->entry.lava->boards == 3);
    CHECK(lab->entry.lava->job_minutes == 60);
    CHECK(lab->entry.lava->job_template == job);
    CHECK(lab->entry.token_file == "/t");
    const std::string broken = tmp / "broken.yaml";
    REQUIRE(WriteFileAtomic(broken, "ktune_token={{KTUNE_TOKN}}\n").ok());
    const std::vector<std::pair<Args, std::string>> refused = {
        {{"add", "lab", "--lava", "lava.example.org", "--device-type", "k1", "--job-template", job},
         "--lava 'lava.example.org': the lab's server as http://HOST[:PORT] or "
         "https://HOST[:PORT]"},
        {{"add", "lab", "--lava", "http://l", "--job-template", job},
         "--lava needs --device-type T"},
        {{"add", "lab", "--lava", "http://l", "--device-type", "k1"},
         "--lava needs --job-template FILE (docs/LAVA.md)"},
        {{"add", "lab", "--lava", "http://l", "--device-type", "k1", "--job-template", job,
          "--boards", "65"},
         "--boards '65': a number of boards from 1 to 64"},
        {{"add", "lab", "--lava", "http://l", "--device-type", "k1", "--job-template", broken},
         broken + ": unknown placeholder {{KTUNE_TOKN}}"},
        {{"add", "lab", "--lava", "http://l", "--device-type", "k1", "--job-template",
          tmp / "none.yaml"},
         tmp / "none.yaml"},
        {{"add", "lab", "--lava", "http://l", "--ssh", "h"}, "needs one of --addr"}};
    for (const auto& [args, said] : refused) {
      CAPTURE(said);
      auto r = ParseAgentArgs(args);
      REQUIRE_FALSE(r.ok());
      CHECK(r.status().message().find(said) != std::string::npos);
    }
  }
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
                                           {"deploy", "k1", "--ssh", "h"},
                                           {"status", "--boards", "2"}}) {
    CAPTURE(bad.front());
    CHECK_FALSE(ParseAgentArgs(bad).ok());
  }
}

}  // namespace
}  // namespace ktune::host
