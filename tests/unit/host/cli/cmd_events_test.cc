#include <doctest/doctest.h>

#include "host/cli/command.h"

namespace ktune::host {
namespace {

TEST_CASE("events options") {
  auto list = ParseEventsArgs({"list", "--cpu-model", "spacemit/x60"});
  REQUIRE(list.ok());
  CHECK(list->action == "list");
  CHECK(list->cpu_model == "spacemit/x60");
  CHECK(ParseEventsArgs({"groups"})->cpu_model.empty());
  CHECK_FALSE(ParseEventsArgs({"show"}).ok());
  CHECK_FALSE(ParseEventsArgs({}).ok());
}

}  // namespace
}  // namespace ktune::host
