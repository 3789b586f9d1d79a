#include <doctest/doctest.h>

#include "protocol/convert.h"
#include "tests/unit/common/system_check_fixture.h"

namespace ktune {
namespace {

TEST_CASE("the system check crosses the wire whole; unknown fields stay unknown") {
  for (SystemCheck c : {test::NoisyCheck(), SystemCheck{}}) {
    c.boost = false;  // false is not unknown
    c.load_1min = 0.0;
    wire::SystemCheck w;
    SystemCheckToWire(c, &w);
    wire::SystemCheck parsed;
    REQUIRE(parsed.ParseFromString(w.SerializeAsString()));
    test::CheckSameSystem(SystemCheckFromWire(parsed), c);
  }
  wire::SystemCheck none;
  none.set_cpu(4);
  SystemCheck unknown;
  unknown.cpu = 4;
  test::CheckSameSystem(SystemCheckFromWire(none), unknown);
}

}  // namespace
}  // namespace ktune
