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

}  // namespace
}  // namespace ktune::host
