#include "host/db/sql.h"

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

TEST_CASE("a URL's password never reaches a message") {
  CHECK(WithoutPassword("postgresql://ktune:secret@db.lab:5432/tuning") ==
        "postgresql://ktune@db.lab:5432/tuning");
  CHECK(WithoutPassword("postgresql://ktune@db.lab/tuning") == "postgresql://ktune@db.lab/tuning");
  CHECK(WithoutPassword("postgresql:///tuning?host=/tmp/x") == "postgresql:///tuning?host=/tmp/x");
  CHECK(WithoutPassword("/home/u/tuning.db") == "/home/u/tuning.db");
}

}  // namespace
}  // namespace ktune::host
