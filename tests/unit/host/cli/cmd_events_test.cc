#include <doctest/doctest.h>

#include "host/cli/cmd_events.h"

namespace ktune::host {
namespace {

TEST_CASE("events options") {
  auto list = ParseEventsArgs({"list", "--cpu-model", "spacemit/x60"});
  REQUIRE(list.ok());
  CHECK(list->action == "list");
  CHECK(list->cpu_model == "spacemit/x60");
  CHECK(ParseEventsArgs({"groups"})->cpu_model.empty());
  CHECK(ParseEventsArgs({"list", "--cpu-model", "0x5b7-0x0-0x0"})->cpu_model ==
        "thead/c900-legacy");
  CHECK(ParseEventsArgs({"list", "--cpu-model", "0x0-0x0-0x0"})
            .status()
            .message()
            .find("mvendorid-marchid-mimpid") != std::string::npos);
  CHECK_FALSE(ParseEventsArgs({"show"}).ok());
  CHECK_FALSE(ParseEventsArgs({}).ok());
}

}  // namespace
}  // namespace ktune::host
