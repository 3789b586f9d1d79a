#include "host/db/schema.h"

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

TEST_CASE("a new database gets the latest schema; a newer one is refused") {
  test::UnitTempDir tmp;
  const std::string path = tmp / "t.db";
  {
    auto db = OpenSqlite(path, true);
    REQUIRE(db.ok());
    CHECK(*SchemaVersion(**db) == 0);
    REQUIRE(Migrate(**db).ok());
    CHECK(*SchemaVersion(**db) == LatestSchemaVersion());
    REQUIRE(Migrate(**db).ok());  // again: nothing to do
    REQUIRE((*db)->Query("INSERT INTO ktune_schema VALUES (99, 'future', 'x')").ok());
  }
  auto again = TuningDb::Open({path, "test"});
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().message() ==
        path + ": the database's schema is version 99, newer than this khost's (" +
            std::to_string(LatestSchemaVersion()) + "): use a newer khost");
}

}  // namespace
}  // namespace ktune::host
