#include <doctest/doctest.h>

#include "host/cli/cmd_push.h"

namespace ktune::host {
namespace {

TEST_CASE("push options") {
  CHECK(ParsePushArgs({"k", "--agent", "h:1"})->agent == "h:1");
}

}  // namespace
}  // namespace ktune::host
