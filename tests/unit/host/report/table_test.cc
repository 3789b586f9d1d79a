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

TEST_CASE(
    "FitTable: placeholder columns become notes; short headers and cells only when too wide") {
  Table t;
  t.columns = {"", "variant", "BLOCK_M", "BLOCK_N", "time", "cycles", "instructions", "IPC"};
  t.short_columns = {"", "", "M", "N"};
  t.text_columns = 2;
  t.AddRow({"*", "mm_4_8_O2.elf", "4", "8", "1.5", "<not supported>", "<not supported>",
            "<missing input instructions>"});
  t.AddRow({"", "mm_16_32_O2.elf", "16", "32", "2.5", "<not supported>", "<not supported>",
            "<missing input instructions>"});
  t.notes = {"best: mm_4_8_O2.elf"};
  const Table wide = FitTable(t, 200);
  CHECK(wide.columns == std::vector<std::string>{"", "variant", "BLOCK_M", "BLOCK_N", "time"});
  CHECK(wide.rows[1] == std::vector<std::string>{"", "mm_16_32_O2.elf", "16", "32", "2.5"});
  CHECK(wide.notes == std::vector<std::string>{"not supported: cycles, instructions",
                                               "missing input instructions: IPC",
                                               "best: mm_4_8_O2.elf"});
  // 40 columns: the short headers (BLOCK_M -> M) are not enough; the variant names lose the
  // "mm_" and "_O2.elf" they all share.
  const Table narrow = FitTable(t, 30);
  CHECK(narrow.columns == std::vector<std::string>{"", "variant", "M", "N", "time"});
  CHECK(narrow.rows[0] == std::vector<std::string>{"*", "4_8", "4", "8", "1.5"});
  CHECK(narrow.rows[1][1] == "16_32");
  CHECK(narrow.notes.back() == "variant: mm_..._O2.elf");
  CHECK(narrow.notes[narrow.notes.size() - 2] == "columns: M = BLOCK_M, N = BLOCK_N");
  CHECK(RenderConsole(t, false, 30) == RenderConsole(narrow));
  // Width 0 (--wide) changes nothing; a column with different placeholders stays.
  CHECK(FitTable(t, 0).columns == t.columns);
  t.rows[1][5] = "<not counted>";
  CHECK(FitTable(t, 200).columns.size() == 6);
}

TEST_CASE("ShortenedNames drops a shared prefix up to a '_', never a whole name") {
  CHECK(ShortenedNames({"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"}) ==
        std::vector<std::string>{"M", "N", "K"});
  CHECK(ShortenedNames({"BLOCK_M", "BLOCK_MN"}) == std::vector<std::string>{"M", "MN"});
  CHECK(ShortenedNames({"TILE_M", "BLOCK_N"}) == std::vector<std::string>{"TILE_M", "BLOCK_N"});
  CHECK(ShortenedNames({"A_", "A_B"}) == std::vector<std::string>{"A_", "A_B"});
  CHECK(ShortenedNames({"BLOCK_SIZE_M"}) == std::vector<std::string>{"BLOCK_SIZE_M"});
  CHECK(ShortenedNames({}).empty());
}

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
