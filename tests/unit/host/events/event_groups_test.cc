#include <doctest/doctest.h>

#include <set>

#include "host/events/event_groups.h"

namespace ktune::host {
namespace {

const std::vector<std::string> kGroupNames = {"branch", "cache", "default", "l1d",
                                              "l2",     "time",  "uops",    "vector"};

TEST_CASE("every shipped group loads against its core's catalog, all eight for each") {
  for (const char* core :
       {"spacemit/x60", "thead/c900-legacy", "sifive/bullet", "sifive/u74", ""}) {
    CAPTURE(core);
    auto catalog = EventCatalog::For(*core ? "riscv64" : "x86_64", core);
    REQUIRE(catalog.ok());
    auto groups = GroupsFor(*catalog);
    REQUIRE_MESSAGE(groups.ok(), groups.status().message());
    std::vector<std::string> names;
    for (const EventGroup& g : *groups) {
      names.push_back(g.name);
      CHECK(
          (g.unsupported.empty() ? !g.description.empty() && !g.events.empty() : g.events.empty()));
    }
    CHECK(names == kGroupNames);
  }
}

TEST_CASE("a core without groups of its own gets the generic ones") {
  auto ax45 = EventCatalog::For("riscv64", "andes/ax45");
  auto groups = GroupsFor(*ax45);
  REQUIRE(groups.ok());
  CHECK(groups->front().file.rfind("generic/", 0) == 0);
}

TEST_CASE("group files: errors name the file and the line") {
  auto parse = [](const std::string& text) { return ParseGroup(text, "g", "x/g.group"); };
  CHECK(parse("description: d\nevent: a\nmetric: r = a / b\n").status().message() ==
        "x/g.group:3: metric 'r' reads b, which is not an event of this group");
  CHECK(parse("# c\nfoo: bar\n").status().message() == "x/g.group:2: unknown key 'foo'");
  CHECK(parse("event: a\nevent: a\n")
            .status()
            .message()
            .find("x/g.group:2: event a is listed twice") != std::string::npos);
  CHECK(parse("event a\n").status().message() == "x/g.group:1: expected 'key: value'");
  CHECK(parse("event: a\nmetric: r = a +\n").status().message().find("x/g.group:2: formula") !=
        std::string::npos);
  CHECK(parse("event: a\nmetric: r\n").status().message().find("NAME = FORMULA") !=
        std::string::npos);
  CHECK(parse("unsupported: no\nevent: a\n").status().message().find("x/g.group:2:") !=
        std::string::npos);
  CHECK(parse("# nothing\n").status().message() ==
        "x/g.group: a group needs events, or an unsupported: reason");
  auto ok = parse("description: d\nevent: a:u\nmetric: per second = a:u / kernel_time\n");
  REQUIRE(ok.ok());
  CHECK(ok->metrics[0].name == "per second");
  CHECK(ok->metrics[0].group == "g");
}

TEST_CASE("an event the core does not have is an error at load, with file and line") {
  const EmbeddedFile files[] = {
      {"generic/bad.group", "description: d\n# comment\nevent: cycles\nevent : cylces\n"}};
  auto groups = LoadGroups(files, EventCatalog::Generic());
  REQUIRE_FALSE(groups.ok());
  CHECK(groups.status().message().rfind("generic/bad.group:4: unknown event 'cylces'", 0) == 0);
}

TEST_CASE("--events items mix groups and events; events come once, in order") {
  auto x60 = EventCatalog::For("riscv64", "spacemit/x60");
  auto groups = GroupsFor(*x60);
  REQUIRE(groups.ok());
  auto sel = SelectEvents({"l2", "l2_miss:u", "cycles", "vector", "l2"}, *groups, *x60);
  REQUIRE(sel.ok());
  CHECK(sel->groups == std::vector<std::string>{"l2", "vector"});
  CHECK(sel->events.front() == "l2_access:u");
  CHECK(std::count(sel->events.begin(), sel->events.end(), "l2_miss:u") == 1);
  CHECK(std::set<std::string>(sel->events.begin(), sel->events.end()).size() == sel->events.size());
  CHECK(sel->events.size() == 4 + 1 + 7);  // l2's four, cycles, vector's seven
  std::vector<std::string> metric_groups;
  for (const MetricDef& m : sel->metrics) metric_groups.push_back(m.group);
  CHECK(metric_groups == std::vector<std::string>{"l2", "l2", "vector", "vector", "vector"});
}

TEST_CASE("metrics two groups share come once; one name for two formulas is told apart") {
  auto x60 = EventCatalog::For("riscv64", "spacemit/x60");
  auto groups = GroupsFor(*x60);
  auto sel = SelectEvents({"default", "vector"}, *groups, *x60);
  REQUIRE(sel.ok());
  int share = 0;
  for (const MetricDef& m : sel->metrics) share += m.name == "vector instruction share";
  CHECK(share == 1);
  const EmbeddedFile files[] = {
      {"generic/a.group",
       "event: cycles\nevent: instructions\nmetric: IPC = instructions / cycles\n"},
      {"generic/b.group",
       "event: cycles\nevent: instructions\nmetric: IPC = cycles / instructions\n"}};
  auto two = LoadGroups(files, EventCatalog::Generic());
  REQUIRE(two.ok());
  auto both = SelectEvents({"a", "b"}, *two, EventCatalog::Generic());
  REQUIRE(both.ok());
  REQUIRE(both->metrics.size() == 2);
  CHECK(both->metrics[0].name == "a: IPC");
  CHECK(both->metrics[1].name == "b: IPC");
}

TEST_CASE("unsupported groups and unknown items are refused with the reason") {
  auto bullet = EventCatalog::For("riscv64", "sifive/bullet");
  auto groups = GroupsFor(*bullet);
  REQUIRE(groups.ok());
  auto vector = SelectEvents({"vector"}, *groups, *bullet);
  CHECK(vector.status().message() ==
        "group vector is not available for sifive/bullet: the U74 has no vector unit");
  auto unknown = SelectEvents({"l3"}, *groups, *bullet);
  CHECK(unknown.status().message().find("unknown event 'l3' for sifive/bullet") !=
        std::string::npos);
  CHECK(unknown.status().message().find("(groups: branch, cache, default") != std::string::npos);
}

}  // namespace
}  // namespace ktune::host
