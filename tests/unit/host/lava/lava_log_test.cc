// A LAVA job's log: records parsed from YAML lines with YAML's escapes, the console's lines, and
// agentd's address in them; on a log recorded from a real LAVA (test_data/lava/).
#include "host/lava/lava_log.h"

#include <doctest/doctest.h>

#include "common/fs.h"

namespace ktune::host {
namespace {

TEST_CASE("a log record: level and message, YAML's escapes decoded, other forms refused") {
  auto l = ParseLavaLogLine(
      R"(- {"dt": "2026-11-28T03:52:24.8", "lvl": "target", "msg": "a\tb \"q\" \\ \x41\u00e9\e[0m"})");
  REQUIRE(l);
  CHECK(l->level == "target");
  CHECK(l->message == "a\tb \"q\" \\ A\xc3\xa9\x1b[0m");
  // A message that is a list or a mapping: its level, no message.
  l = ParseLavaLogLine(
      R"(- {"dt": "x", "lvl": "results", "msg": {"case": "a", "result": "pass", "extra": ["x}", "y"]}})");
  REQUIRE(l);
  CHECK(l->level == "results");
  CHECK(l->message.empty());
  // The namespace key some records carry is skipped.
  l = ParseLavaLogLine(R"(- {"dt": "x", "lvl": "feedback", "msg": "m", "ns": "common"})");
  REQUIRE(l);
  CHECK(l->message == "m");
  for (const char* bad :
       {"", "- {", R"({"lvl": "target"})", R"(- {"dt": "x", "msg": "no level"})",
        R"(- {"lvl": "target", "msg": "unclosed})", R"(- {"lvl": "x", "msg": "\q"})",
        R"(- {"lvl": "x", "msg": "\u12"})", R"(- {"lvl": "x", "msg": "\U00110000"})",
        R"(- {"lvl": "x" "msg": "no comma"})", R"(- {"lvl": "x", "msg": {"a": "b"})",
        R"(- {"lvl": x})"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseLavaLogLine(bad));
  }
}

TEST_CASE("a log read while it grows: whole lines only, and how many") {
  size_t lines = 0;
  const std::string text =
      "- {\"lvl\": \"info\", \"msg\": \"one\"}\nnot a record\n- {\"lvl\": \"target\", \"msg\": "
      "\"tw";
  const std::vector<LavaLogLine> got = ParseLavaLog(text, &lines);
  CHECK(lines == 2);
  REQUIRE(got.size() == 1);
  CHECK(got[0].message == "one");
  CHECK(ParseLavaLog("", &lines).empty());
  CHECK(lines == 0);
}

TEST_CASE("agentd's address in a console line") {
  CHECK(AgentdListening("agentd 0.1.0 listening on 10.0.2.15:7178 store /tmp/store")->ToString() ==
        "10.0.2.15:7178");
  CHECK(AgentdListening("[    1.5] agentd 0.2 listening on [fe80::1]:7178\r")->port == 7178);
  CHECK_FALSE(AgentdListening("Waiting for start message: listening on"));
  CHECK_FALSE(AgentdListening("agentd 0.1.0 listening on nowhere"));
  CHECK_FALSE(AgentdListening("agentd 0.1.0 stopped"));
}

TEST_CASE("a real job's log: the board's console, and agentd listening on it") {
  const std::string text = ReadFile(KTUNE_TEST_DATA "/lava/job-vboard.yaml").value();
  size_t lines = 0;
  const std::vector<LavaLogLine> log = ParseLavaLog(text, &lines);
  CHECK(lines == 277);
  CHECK(log.size() == 277);  // every line a record, the list-valued one too
  std::vector<HostPort> said;
  size_t console = 0;
  for (const LavaLogLine& l : log) {
    if (l.level != "target") continue;
    ++console;
    if (auto at = AgentdListening(l.message)) said.push_back(*at);
  }
  CHECK(console > 20);
  REQUIRE(said.size() == 1);
  CHECK(said[0].ToString() == "10.0.2.15:7178");
}

}  // namespace
}  // namespace ktune::host
