// khost analyze's model and renderings (host/report/analysis.h, table.h, compare.h, plots.h,
// html_report.h) on a run built here, whose answers are known by construction; the renderings
// are compared with golden files in test_data/golden/ (KTUNE_UPDATE_GOLDEN=1 rewrites them).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/fs.h"
#include "host/report/analysis.h"
#include "host/report/compare.h"
#include "host/report/html_report.h"
#include "host/report/plots.h"
#include "host/report/report.h"
#include "host/report/table.h"

namespace ktune::host {
namespace {

TEST_CASE("tables render as aligned console text, CSV, JSON and Markdown") {
  Table t;
  t.title = "things";
  t.columns = {"name", "count"};
  t.AddRow({"a|b", "7"}, RowStyle::kGood);
  t.AddRow({"longer", "12345"});
  t.notes = {"note: two rows"};
  CHECK(RenderConsole(t) ==
        "things\nname    count\na|b         7\nlonger  12345\nnote: two rows\n");
  CHECK(RenderConsole(t, true).find("\x1b[32ma|b         7\x1b[0m\n") != std::string::npos);
  CHECK(RenderCsv(t) == "name,count\na|b,7\nlonger,12345\n");
  CHECK(RenderMarkdown(t) ==
        "**things**\n\n| name | count |\n| --- | ---: |\n| a\\|b | 7 |\n| longer | 12345 |\n"
        "\n- note: two rows\n");
  CHECK(
      RenderJson(t) ==
      "{\n  \"title\": \"things\",\n  \"rows\": [\n    {\n      \"name\": \"a|b\",\n"
      "      \"count\": \"7\"\n    },\n    {\n      \"name\": \"longer\",\n"
      "      \"count\": \"12345\"\n    }\n  ],\n  \"notes\": [\n    \"note: two rows\"\n  ]\n}\n");
  // JSON keys stay unique when headers repeat (a parameter named like a column).
  Table dup;
  dup.columns = {"n", "n"};
  dup.AddRow({"1", "2"});
  CHECK(RenderJson(dup).find("\"n\": \"1\",\n      \"n (2)\": \"2\"") != std::string::npos);
  TableFormat f;
  CHECK(ParseTableFormat("md", &f));
  CHECK(f == TableFormat::kMarkdown);
  CHECK_FALSE(ParseTableFormat("xml", &f));
  CHECK(RenderAll({t, t}, TableFormat::kCsv) ==
        "# things\nname,count\na|b,7\nlonger,12345\n\n# things\nname,count\na|b,7\nlonger,12345\n");
}

}  // namespace
}  // namespace ktune::host
