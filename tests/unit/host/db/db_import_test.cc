#include "host/db/db_import.h"

#include <doctest/doctest.h>

#include <cmath>

#include "common/fs.h"
#include "host/db/db_import.h"
#include "host/db/schema.h"
#include "host/results/results_dir.h"
#include "tests/unit/host/db/db_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using dbtest::Meta;
using dbtest::Row;

TEST_CASE("db import takes every run under a root, once, and names a file it cannot read") {
  test::UnitTempDir tmp;
  const std::string results = tmp / "root/k/run/results";
  REQUIRE(MakeDirs(results).ok());
  std::string csv = std::string(kResultsHeader) + "\n";
  for (uint32_t i = 0; i < 3; ++i)
    csv += ToCsvLines(Row("20261127T000000.000Z-aaaaaa", 0, i, 1e-3));
  REQUIRE(WriteFileAtomic(results + "/20261127T000000.000Z-aaaaaa.csv", csv).ok());
  REQUIRE(WriteRunMeta(results + "/20261127T000000.000Z-aaaaaa.json",
                       Meta("20261127T000000.000Z-aaaaaa"))
              .ok());
  // A run without its metadata still goes in; a malformed one is named and left out.
  std::string other = std::string(kResultsHeader) + "\n";
  other += ToCsvLines(Row("20261127T000001.000Z-bbbbbb", 0, 0, 1e-3));
  REQUIRE(WriteFileAtomic(results + "/20261127T000001.000Z-bbbbbb.csv", other).ok());
  REQUIRE(WriteFileAtomic(results + "/20261127T000002.000Z-cccccc.csv",
                          std::string(kResultsHeader) + "\nnot,a,row\n")
              .ok());
  auto db = TuningDb::Open({tmp / "t.db", "test"});
  REQUIRE(db.ok());
  auto first = ImportRoot(**db, tmp / "root", "host");
  REQUIRE(first.ok());
  CHECK(first->kernels == 1);
  CHECK(first->runs == 2);
  CHECK(first->lines_new == 8);
  REQUIRE(first->skipped.size() == 1);
  CHECK(first->skipped[0].find("20261127T000002.000Z-cccccc.csv: ") != std::string::npos);
  auto second = ImportRoot(**db, tmp / "root", "host");
  REQUIRE(second.ok());
  CHECK(second->lines_new == 0);
  CHECK(second->lines_held == 8);
  CHECK(ImportRoot(**db, tmp / "nowhere", "host").status().code() == ErrorCode::kNotFound);
}

}  // namespace
}  // namespace ktune::host
