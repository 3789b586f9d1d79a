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

}  // namespace
}  // namespace ktune::host
