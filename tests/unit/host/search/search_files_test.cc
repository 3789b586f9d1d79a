// A search's files: the metadata (with the batch being measured) and the journal.
#include "host/search/search_files.h"

#include <doctest/doctest.h>

#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("the metadata keeps the arguments, the seconds and the batch being measured") {
  test::UnitTempDir tmp;
  const std::string path = SearchPath(tmp.path().string(), "S");
  REQUIRE(MakeDirs(SearchesDir(tmp.path().string())).ok());
  SearchMeta meta{{"k.kspec", "--strategy", "bayes"}, 12.5, std::nullopt};
  REQUIRE(WriteSearchMeta(path, meta).ok());
  auto read = ReadSearchMeta(path);
  REQUIRE(read.ok());
  CHECK(read->argv == meta.argv);
  CHECK(read->elapsed_s == 12.5);
  CHECK_FALSE(read->pending);

  meta.pending = SearchMeta::Batch{"R1", {{1, 2}, {-3, 4}}};
  REQUIRE(WriteSearchMeta(path, meta).ok());
  read = ReadSearchMeta(path);
  REQUIRE(read.ok());
  REQUIRE(read->pending);
  CHECK(read->pending->run_id == "R1");
  CHECK(read->pending->configs == std::vector<std::vector<int64_t>>{{1, 2}, {-3, 4}});
  CHECK(read->warm_start.empty());

  meta.warm_start = {{5, 6}, {7, 8}};
  meta.warm_about = "2 configurations first";
  meta.warm_here = 1;
  REQUIRE(WriteSearchMeta(path, meta).ok());
  read = ReadSearchMeta(path);
  REQUIRE(read.ok());
  CHECK(read->warm_start == meta.warm_start);
  CHECK(read->warm_about == "2 configurations first");
  CHECK(read->warm_here == 1);
  CHECK(read->pending->run_id == "R1");

  // No configurations, and why: kept (the search_meta fuzz target's round trip lost it).
  meta.warm_start = {};
  meta.warm_about = "none: no earlier run of this kernel";
  meta.warm_here = 0;
  REQUIRE(WriteSearchMeta(path, meta).ok());
  read = ReadSearchMeta(path);
  REQUIRE(read.ok());
  CHECK(read->warm_start.empty());
  CHECK(read->warm_about == "none: no earlier run of this kernel");
  CHECK(read->warm_here == 0);

  // Written before "here" was: every configuration counts as measured here, as it did then.
  const std::string json = path.substr(0, path.size() - 4) + ".json";
  REQUIRE(WriteFileAtomic(json, R"({"argv": [], "elapsed_s": 0, "warm_start": )"
                                R"({"configs": [[1], [2]], "about": "x"}})")
              .ok());
  read = ReadSearchMeta(path);
  REQUIRE(read.ok());
  CHECK(read->warm_here == 2);
}

TEST_CASE("malformed metadata is an error naming the file") {
  test::UnitTempDir tmp;
  const std::string path = tmp / "S.csv";
  for (
      const char* text :
      {"[]", R"({"argv": ["a"]})", R"({"argv": [1], "elapsed_s": 0})",
       R"({"argv": [], "elapsed_s": 0, "pending": {"run": "R"}})",
       R"({"argv": [], "elapsed_s": 0, "pending": {"run": "R", "configs": [1]}})",
       R"({"argv": [], "elapsed_s": 0, "pending": {"run": 1, "configs": []}})",
       R"({"argv": [], "elapsed_s": 0, "pending": {"run": "R", "configs": [[0.5]]}})",
       R"({"argv": [], "elapsed_s": 0, "warm_start": {"configs": [[1]]}})",
       R"({"argv": [], "elapsed_s": 0, "warm_start": {"configs": [1], "about": ""}})",
       R"({"argv": [], "elapsed_s": 0, "warm_start": {"configs": [], "about": "", "here": -1}})"}) {
    CAPTURE(text);
    REQUIRE(WriteFileAtomic(tmp / "S.json", text).ok());
    const auto read = ReadSearchMeta(path);
    REQUIRE_FALSE(read.ok());
    CHECK(read.status().message().find(tmp / "S.json") != std::string::npos);
  }
}

TEST_CASE("the journal appends evaluations and reads them back, a torn last line cut") {
  test::UnitTempDir tmp;
  const std::string path = SearchPath(tmp.path().string(), "S");
  {
    auto j = SearchJournal::Create(path, {"kernel k"}, {"A", "B"});
    REQUIRE(j.ok());
    REQUIRE(j->Append({{1, 2}, 5e6, "ok", "R"}).ok());
    REQUIRE(j->Append({{3, 4}, std::nullopt, "build failed", ""}).ok());
    CHECK(j->evaluations().rows.size() == 2);
    CHECK_FALSE(SearchJournal::Create(path, {}, {"A", "B"}).ok());  // never over a journal
  }
  {
    auto text = ReadFile(path);
    REQUIRE(text.ok());
    REQUIRE(WriteFileAtomic(path, *text + "5,6,7").ok());  // a writer killed mid-line
  }
  auto j = SearchJournal::Open(path);
  REQUIRE(j.ok());
  CHECK(j->evaluations().names == std::vector<std::string>{"A", "B"});
  REQUIRE(j->evaluations().rows.size() == 2);
  CHECK(j->evaluations().rows[1].status == "build failed");
  REQUIRE(j->Append({{5, 6}, 7e6, "ok", "R2"}).ok());
  auto again = SearchJournal::Open(path);
  REQUIRE(again.ok());
  REQUIRE(again->evaluations().rows.size() == 3);
  CHECK(again->evaluations().rows[2].config == std::vector<int64_t>{5, 6});
}

TEST_CASE("FindSearchFile: the named search, else the newest; none is NotFound") {
  test::UnitTempDir tmp;
  const std::string dir = tmp.path().string();
  CHECK(FindSearchFile(dir, "").status().code() == ErrorCode::kNotFound);
  REQUIRE(MakeDirs(SearchesDir(dir)).ok());
  REQUIRE(WriteFileAtomic(SearchPath(dir, "20260101T000000.000Z-aaaaaa"), "").ok());
  REQUIRE(WriteFileAtomic(SearchPath(dir, "20260102T000000.000Z-bbbbbb"), "").ok());
  CHECK(FindSearchFile(dir, "").value() == SearchPath(dir, "20260102T000000.000Z-bbbbbb"));
  CHECK(FindSearchFile(dir, "20260101T000000.000Z-aaaaaa").value() ==
        SearchPath(dir, "20260101T000000.000Z-aaaaaa"));
  CHECK(FindSearchFile(dir, "nope").status().code() == ErrorCode::kNotFound);
}

}  // namespace
}  // namespace ktune::host
