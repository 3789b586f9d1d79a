#include <doctest/doctest.h>

#include "common/csv.h"

namespace ktune {
namespace {

TEST_CASE("CSV fields are quoted only when needed and split back exactly") {
  CHECK(CsvField("plain") == "plain");
  CHECK(CsvField("a,b") == "\"a,b\"");
  CHECK(CsvField("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(CsvField("two\nlines") == "two lines");
  CHECK(CsvField(" padded") == "\" padded\"");
  // A line break is written as a space; quoting follows what is written, so writing a field read
  // back gives the same text.
  CHECK(CsvField("cr\rhere") == "cr here");
  CHECK(CsvField("end\r") == "\"end \"");
  for (const std::string field : {"cr\rhere", "end\n", "a,\r\nb", "\"q\"\r"}) {
    const std::string once = CsvField(field);
    CHECK(CsvField(CsvSplit(once).value().at(0)) == once);
  }
  const std::vector<std::string> fields = {"", "a,b", "x\"y", "Kernel Time (s)", " s "};
  auto back = CsvSplit(CsvJoin(fields));
  REQUIRE(back.ok());
  CHECK(*back == fields);
}

TEST_CASE("CSV splitting rejects broken quoting") {
  CHECK_FALSE(CsvSplit("\"open").ok());
  CHECK_FALSE(CsvSplit("\"a\"b,c").ok());
  CHECK(CsvSplit("a,,c")->size() == 3);
  CHECK(CsvSplit("")->size() == 1);
}

TEST_CASE("CSV splitting tells where each field begins") {
  std::vector<size_t> starts = {7};
  auto fields = CsvSplit("a,\"b,\"\"c\",,d", &starts);
  REQUIRE(fields.ok());
  CHECK(*fields == std::vector<std::string>{"a", "b,\"c", "", "d"});
  CHECK(starts == std::vector<size_t>{0, 2, 10, 11});
  REQUIRE(CsvSplit("", &starts).ok());
  CHECK(starts == std::vector<size_t>{0});
}

}  // namespace
}  // namespace ktune
