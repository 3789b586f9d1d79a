#include <doctest/doctest.h>

#include "common/address.h"

namespace ktune {
namespace {

TEST_CASE("agent addresses parse as HOST:PORT") {
  auto a = ParseHostPort("127.0.0.1:7178");
  REQUIRE(a.ok());
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 7178);
  auto v6 = ParseHostPort("[::1]:9");
  REQUIRE(v6.ok());
  CHECK(v6->host == "::1");
  CHECK(v6->ToString() == "[::1]:9");
  CHECK(ParseHostPort("board.local:1")->host == "board.local");
  for (const char* bad :
       {"", "host", ":1", "host:", "host:65536", "host:x", "::1:5", "[::1]5", "host:0"}) {
    CHECK_MESSAGE(!ParseHostPort(bad).ok(), bad);
  }
  CHECK(ParseHostPort("127.0.0.1:0", /*allow_port_zero=*/true).ok());
}

}  // namespace
}  // namespace ktune
