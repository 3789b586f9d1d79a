#include <doctest/doctest.h>

#include "host/cli/cmd_report.h"
#include "host/report/table.h"

namespace ktune::host {
namespace {

TEST_CASE("report options") {
  auto r = ParseReportArgs({"k", "--format", "perf-stats", "--run", "r1", "-o", "out.csv"});
  REQUIRE(r.ok());
  CHECK(r->perf_stats);
  CHECK(r->run_id == "r1");
  CHECK(r->output == "out.csv");
  CHECK(ParseReportArgs({"k"})->format == TableFormat::kConsole);
  CHECK_FALSE(ParseReportArgs({"k"})->perf_stats);
  CHECK_FALSE(ParseReportArgs({"k", "--format", "xml"}).ok());
  CHECK_FALSE(ParseReportArgs({"../k"}).ok());
}

TEST_CASE("report --fetch, with the agent to fetch from; not with --compare") {
  auto f = ParseReportArgs({"k", "--fetch", "--run", "r1", "--agent", "h:1", "--token-file", "t"});
  REQUIRE(f.ok());
  CHECK(f->fetch);
  CHECK(f->run_id == "r1");
  CHECK(f->agent == "h:1");
  CHECK(f->token_file == "t");
  CHECK(ParseReportArgs({"k", "--fetch"})->fetch);
  CHECK_FALSE(ParseReportArgs({"k"})->fetch);
  auto both = ParseReportArgs({"k", "--compare", "r1,r2", "--fetch"});
  CHECK(both.status().code() == ErrorCode::kInvalidArgument);
  CHECK(both.status().message().find("--fetch") != std::string::npos);
}

TEST_CASE("report --compare, markdown") {
  auto c = ParseReportArgs({"k", "--compare", "r1,r2", "--format", "markdown"});
  REQUIRE(c.ok());
  CHECK(c->compare == std::vector<std::string>{"r1", "r2"});
  CHECK(c->format == TableFormat::kMarkdown);
  CHECK(ParseReportArgs({"k", "--compare", "r1"}).status().message() ==
        "--compare takes two runs: RUN_A,RUN_B");
  CHECK_FALSE(ParseReportArgs({"k", "--compare", "r1,r2", "--run", "r3"}).ok());
  CHECK_FALSE(ParseReportArgs({"k", "--compare", "r1,r2", "--format", "perf-stats"}).ok());
}

}  // namespace
}  // namespace ktune::host
