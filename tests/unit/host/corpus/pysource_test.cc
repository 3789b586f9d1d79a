// The Python reader (host/corpus/pysource.h) and the Triton kernel extractor
// (host/corpus/corpus.h), on output_code.py-shaped text written here.
#include <doctest/doctest.h>

#include <algorithm>

#include "host/corpus/corpus.h"
#include "host/corpus/pysource.h"

namespace ktune::host {
namespace {

TEST_CASE("logical lines: brackets and backslashes join lines; strings and comments stay whole") {
  const std::string src =
      "import triton  # comment with def f():\n"
      "\n"
      "x = f(1,\n"
      "      2)\n"
      "y = 1 + \\\n"
      "    2\n"
      "s = '''\n"
      "def not_a_function():\n"
      "'''\n"
      "def g():\n"
      "\treturn r'\\'' \"#\"\n";
  auto lines = PyLogicalLines(src);
  REQUIRE(lines.ok());
  REQUIRE(lines->size() == 6);
  CHECK((*lines)[0].tokens.size() == 2);  // the comment is gone
  CHECK((*lines)[1].first_line == 3);
  CHECK((*lines)[1].last_line == 4);
  CHECK((*lines)[2].first_line == 5);
  CHECK((*lines)[2].last_line == 6);
  CHECK((*lines)[3].first_line == 7);
  CHECK((*lines)[3].last_line == 9);
  REQUIRE((*lines)[3].tokens.size() == 3);
  CHECK((*lines)[3].tokens[2].kind == PyToken::kString);
  CHECK((*lines)[3].tokens[2].contents == "\ndef not_a_function():\n");
  CHECK((*lines)[4].indent == 0);
  CHECK((*lines)[5].indent == 8);  // a tab goes to the next multiple of 8
  REQUIRE((*lines)[5].tokens.size() == 3);
  CHECK((*lines)[5].tokens[1].text == "r'\\''");
  CHECK((*lines)[5].tokens[2].contents == "#");
}

TEST_CASE("logical lines: what the reader cannot follow names its line") {
  CHECK(PyLogicalLines("a = 1\nb = '''never\nends\n").status().message() ==
        "line 2: a string that never ends");
  CHECK(PyLogicalLines("a = 'x\nb = 2\n").status().message() == "line 1: a string that never ends");
  CHECK(PyLogicalLines("a = (1,\n2\n").status().message() == "line 1: '(' is never closed");
  CHECK(PyLogicalLines("a = 1)\n").status().message() == "line 1: ')' closes nothing");
  CHECK(PyLogicalLines(std::string("a = 1\n\0\n", 8)).status().message() ==
        "line 2: a NUL byte (not Python source)");
  CHECK(PyLogicalLines("").value().empty());
  CHECK(PyLogicalLines("x\\\n").value().size() == 1);
  // Numbered from the line given: code within a string of a file, in the file's lines.
  CHECK(PyLogicalLines("a = 1\nb = (\n", 11).status().message() == "line 12: '(' is never closed");
}

TEST_CASE("logical lines: a byte-order mark and CRLF line ends read as Python reads them") {
  auto bom = PyLogicalLines("\xEF\xBB\xBFimport triton.language as tl\n");
  REQUIRE(bom.ok());
  REQUIRE(bom->size() == 1);
  CHECK((*bom)[0].tokens[0].text == "import");
  CHECK((*bom)[0].indent == 0);
  // A backslash before CRLF continues a quoted string, as before LF.
  auto crlf = PyLogicalLines("x = \"a\\\r\nb\"\r\ny = 2\r\n");
  REQUIRE(crlf.ok());
  REQUIRE(crlf->size() == 2);
  CHECK((*crlf)[0].last_line == 2);
  CHECK((*crlf)[1].first_line == 3);
}

}  // namespace
}  // namespace ktune::host
