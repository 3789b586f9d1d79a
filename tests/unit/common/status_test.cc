#include <doctest/doctest.h>

#include "common/status.h"

namespace ktune {
namespace {

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  KT_ASSIGN_OR_RETURN(int h, Half(x));
  KT_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  KT_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST_CASE("Result carries a value or a status, and the macros return early") {
  CHECK(Quarter(8).value() == 2);
  Result<int> r = Quarter(6);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kInvalidArgument);
  CHECK(r.status().message() == "odd: 3");
  CHECK(CheckEven(4).ok());
  CHECK(CheckEven(5).message() == "odd: 5");
}

TEST_CASE("WithContext prefixes messages and keeps codes") {
  Status s = NotFound("x").WithContext("loading y");
  CHECK(s.message() == "loading y: x");
  CHECK(s.code() == ErrorCode::kNotFound);
  CHECK(Status::Ok().WithContext("ignored").ok());
  CHECK(ErrnoError("open f", ENOENT).message() == "open f: No such file or directory");
}

}  // namespace
}  // namespace ktune
