// <kernel>_dispatch.h's text and the tables it refuses (compiled and run: integration.tune).
#include "host/tune/dispatch_header.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

DispatchTable Table() {
  return {"matmul",
          "R1",
          {"M", "N"},
          {"BLOCK_SIZE_M", "BLOCK_SIZE_N"},
          {{{64, 64}, {32, 16}, "kernel-time 1 us, faster than the runner-up"},
           {{1024, 64}, {64, 8}, "a */ in a comment"}}};
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_CASE("the header: a guard, the names, an entry per shape with why, and the lookup") {
  auto h = DispatchHeader(Table());
  REQUIRE(h.ok());
  CHECK(h->starts_with("/* matmul_dispatch.h, written by khost tune --apply-best from run R1:"));
  CHECK(Contains(*h, "#ifndef MATMUL_DISPATCH_H\n#define MATMUL_DISPATCH_H\n"));
  CHECK(Contains(*h, "#define MATMUL_DISPATCH_ENTRIES 2\n"));
  CHECK(Contains(*h, "= {\"M\", \"N\"};"));
  CHECK(Contains(*h, "= {\"BLOCK_SIZE_M\", \"BLOCK_SIZE_N\"};"));
  CHECK(Contains(*h, "{{64, 64}, {32, 16}}, /* M=64 N=64: kernel-time 1 us, faster"));
  CHECK(Contains(*h, "{{1024, 64}, {64, 8}}, /* M=1024 N=64: a * / in a comment */"));
  CHECK(Contains(*h, "static inline const long* matmul_dispatch(const long* shape)"));
  CHECK(Contains(*h, "the smallest product over M, N of the larger"));
  CHECK(h->ends_with("#endif /* MATMUL_DISPATCH_H */\n"));
}

TEST_CASE("no entry, a name C cannot take, a wrong width or one shape twice: no header") {
  DispatchTable t = Table();
  t.entries.clear();
  CHECK(DispatchHeader(t).status().message() == "no shape has a winner to dispatch to");
  t = Table();
  t.dims[0] = "M-1";
  CHECK(DispatchHeader(t).status().message() == "'M-1' is not a C identifier: no dispatch header");
  t = Table();
  t.kernel = "9lives";
  CHECK_FALSE(DispatchHeader(t).ok());
  t = Table();
  t.entries[1].config.push_back(1);
  CHECK(DispatchHeader(t).status().message() == "a dispatch entry of the wrong width");
  t = Table();
  t.entries[1].shape = t.entries[0].shape;
  CHECK(DispatchHeader(t).status().message() == "two winners for the shape 64, 64");
}

}  // namespace
}  // namespace ktune::host
