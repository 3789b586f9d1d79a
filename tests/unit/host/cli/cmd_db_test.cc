#include "host/cli/cmd_db.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("khost db shows by default; import takes ROOT; --db none is refused") {
  auto show = ParseDbArgs({});
  REQUIRE(show.ok());
  CHECK(show->action == "show");
  CHECK_FALSE(show->json);
  CHECK(ParseDbArgs({"show", "--format", "json"})->json);
  auto import = ParseDbArgs({"import", "r", "--db", "postgresql://u@h/t"});
  REQUIRE(import.ok());
  CHECK(import->root == "r");
  CHECK(import->db == "postgresql://u@h/t");
  CHECK(ParseDbArgs({"import"}).status().message() == "'khost db import' needs ROOT");
  CHECK(ParseDbArgs({"show", "r"}).status().message() == "unexpected argument 'r'");
  CHECK(ParseDbArgs({"drop"}).status().message().find("unknown action 'drop'") !=
        std::string::npos);
  CHECK(ParseDbArgs({"--db", "none"}).status().message() == "--db none: khost db needs a database");
  CHECK(ParseDbArgs({"--format", "xml"}).status().message() == "--format 'xml': table or json");
}

}  // namespace
}  // namespace ktune::host
