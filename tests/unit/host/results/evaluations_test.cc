#include "host/results/evaluations.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("evaluations: written and read back") {
  std::string text = FormatEvaluationsHeader({"kernel matmul, agent local", "a\nb\t"}, {"M", "N"});
  CHECK(text ==
        "# ktune evaluations 1\n# kernel matmul, agent local\n# a b \nM,N,time_ns,status,run\n");
  text += FormatEvaluation({{4, 16}, 1234567.5, "ok", "r1"});
  text += FormatEvaluation({{8, 16}, std::nullopt, "build failed", ""});
  text += FormatEvaluation({{4, 32}, std::nullopt, "signal:SIGSEGV, core\ndumped", "r1"});
  text += FormatEvaluation({{8, 32}, 1000.0, "ok", "r2"});
  auto e = ParseEvaluations(text);
  REQUIRE(e.ok());
  CHECK(e->torn_lines == 0);
  CHECK(e->comments == std::vector<std::string>{"kernel matmul, agent local", "a b "});
  CHECK(e->names == std::vector<std::string>{"M", "N"});
  REQUIRE(e->rows.size() == 4);
  CHECK(e->rows[0].config == std::vector<int64_t>{4, 16});
  CHECK(e->rows[0].time_ns == 1234567.5);
  CHECK(e->rows[0].run == "r1");
  CHECK(e->rows[1].status == "build failed");
  CHECK(e->rows[2].status == "signal:SIGSEGV; core dumped");
  CHECK_FALSE(e->rows[2].time_ns.has_value());

  // A writer killed mid-line: the torn line is dropped and counted.
  auto torn = ParseEvaluations(text + "8,64,12");
  REQUIRE(torn.ok());
  CHECK(torn->torn_lines == 1);
  CHECK(torn->rows.size() == 4);
}

TEST_CASE("a configuration for people: the parameters in order") {
  CHECK(ConfigText({"M", "N"}, {4, 16}) == "M=4 N=16");
  CHECK(ConfigText({}, {}).empty());
}

TEST_CASE("evaluations: malformed files are refused with the line") {
  const std::string head = "# ktune evaluations 1\nM,time_ns,status,run\n";
  auto error = [](const std::string& text) {
    auto e = ParseEvaluations(text);
    REQUIRE_FALSE(e.ok());
    return e.status().message();
  };
  CHECK(error("") ==
        "not a ktune evaluations file: the first line must be "
        "'# ktune evaluations 1'");
  CHECK(error("# ktune evaluations 1\n# only comments\n") == "evaluations file has no header line");
  CHECK(error("# ktune evaluations 1\ntime_ns,status,run\n") ==
        "evaluations line 2: the header must be the parameters, then time_ns,status,run");
  CHECK(error("# ktune evaluations 1\nM,M,time_ns,status,run\n") ==
        "evaluations line 2: parameter M is named twice");
  CHECK(error(head + "4,1,ok\n") == "evaluations line 3: 3 fields, not 4");
  CHECK(error(head + "x,1,ok,r\n") == "evaluations line 3: M is not an integer");
  CHECK(error(head + "4,,ok,r\n") ==
        "evaluations line 3: an ok configuration needs a positive "
        "time_ns");
  CHECK(error(head + "4,-1,ok,r\n") ==
        "evaluations line 3: an ok configuration needs a positive "
        "time_ns");
  CHECK(error(head + "4,5,timeout,r\n") ==
        "evaluations line 3: a configuration that is not ok has no time");
  CHECK(error(head + "4,,,r\n") == "evaluations line 3: no status");
  CHECK(error(head + "4,,timeout,r\rx\n") == "evaluations line 3: a control character");
  CHECK(error("# ktune evaluations 1\n# a\tb\n" + head.substr(22)) ==
        "evaluations line 2: a control character");
  auto crlf = ParseEvaluations(head + "4,5,ok,r\r\n");
  REQUIRE(crlf.ok());
  CHECK(crlf->rows[0].run == "r");
  auto none = ParseEvaluations(head);
  REQUIRE(none.ok());
  CHECK(none->rows.empty());
}

// Found by the bad-input campaign (issue 33): a configuration's second line, with a fake time from
// a run that never was, replaced the real measurement and became the best.
TEST_CASE("a configuration given again is dropped, the first line kept, and said") {
  const std::string head = "# ktune evaluations 1\nM,time_ns,status,run\n";
  auto e = ParseEvaluations(head + "4,5000,ok,r1\n8,,build failed,\n4,0.000001,ok,fake\n" +
                            "8,1,ok,fake\n16,7000,ok,r1\n");
  REQUIRE(e.ok());
  REQUIRE(e->rows.size() == 3);
  CHECK(*e->rows[0].time_ns == 5000);
  CHECK(e->rows[0].run == "r1");
  CHECK_FALSE(e->rows[1].time_ns.has_value());
  CHECK(e->rows[2].config == std::vector<int64_t>{16});
  CHECK(e->duplicate_lines == 2);
  CHECK(e->first_duplicate_line == 5);
  CHECK(EvaluationsWarning(*e) ==
        "ignored 2 lines giving a configuration again, from line 5 (a search measures each "
        "configuration once; its first line is kept)");
  // Nothing to say of a clean file; a torn last line is said.
  auto clean = ParseEvaluations(head + "4,5000,ok,r1\n");
  REQUIRE(clean.ok());
  CHECK(EvaluationsWarning(*clean).empty());
  auto torn = ParseEvaluations(head + "4,5000,ok,r1\n8,60");
  REQUIRE(torn.ok());
  CHECK(EvaluationsWarning(*torn) ==
        "ignored an unterminated last line (the search stopped while writing it)");
}

}  // namespace
}  // namespace ktune::host
