#include <doctest/doctest.h>

#include <cmath>

#include "host/report/stats.h"
#include "host/util/progress.h"

namespace ktune::host {
namespace {

TEST_CASE("ETAs read as minutes:seconds, or hours:minutes:seconds") {
  CHECK(FormatEta(0) == "0:00");
  CHECK(FormatEta(65.4) == "1:05");
  CHECK(FormatEta(43203) == "12:00:03");
  CHECK(FormatEta(-3) == "0:00");
}

}  // namespace
}  // namespace ktune::host
