#include "host/cli/cmd_history.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("khost history: a configuration as NAME=VALUE pairs, a format, a page") {
  auto r = ParseHistoryArgs({"matmul", "--config", "BLOCK_SIZE_M=8 BLOCK_SIZE_N=64", "--format",
                             "json", "--html", "out"});
  REQUIRE(r.ok());
  CHECK(r->config == Params{{"BLOCK_SIZE_M", "8"}, {"BLOCK_SIZE_N", "64"}});
  CHECK(r->format == TableFormat::kJson);
  CHECK(r->html == "out");
  CHECK(ParseHistoryArgs({"matmul"})->config.empty());
  CHECK(ParseHistoryArgs({"matmul", "--config", "BLOCK_SIZE_M"}).status().message() ==
        "--config 'BLOCK_SIZE_M': expected NAME=VALUE pairs");
  CHECK(ParseHistoryArgs({"matmul", "--format", "xml"}).status().message() ==
        "--format 'xml': console, csv, json or markdown");
}

}  // namespace
}  // namespace ktune::host
