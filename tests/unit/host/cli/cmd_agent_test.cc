#include <doctest/doctest.h>

#include "host/cli/command.h"

namespace ktune::host {
namespace {

TEST_CASE("agent options: the actions") {
  CHECK(ParseAgentArgs({"status"}).ok());
  CHECK_FALSE(ParseAgentArgs({"reboot"}).ok());
}

}  // namespace
}  // namespace ktune::host
