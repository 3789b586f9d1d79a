// <kernel>_dispatch.h's text and the tables it refuses (compiled and run: integration.tune).
#include "host/tune/dispatch_header.h"

#include <doctest/doctest.h>

#include "tests/contains.h"
#include "tests/unit/host/tune/spec_fixture.h"

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

using test::Contains;

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

TEST_CASE("a dispatch table of a run's winners: an entry a shape, those left out said") {
  const KernelSpec spec = fixture::Spec();
  const auto winner = [](int64_t m, const std::string& block_m, const std::string& why) {
    ShapeWinner w;
    w.shape = {{"M", std::to_string(m)}, {"N", "3"}, {"K", "4"}};
    w.config = {{"BLOCK_SIZE_M", block_m}, {"BLOCK_SIZE_N", "16"}};
    w.variant = "matmul_" + block_m;
    w.why = why;
    return w;
  };
  ShapeWinner none;
  none.shape = {{"M", "16"}, {"N", "3"}, {"K", "4"}};
  none.problem = "every variant failed";
  std::vector<std::string> notes;
  auto t = MakeDispatchTable(
      spec, "R1",
      {winner(8, "4", "fast"), none, winner(32, "8", "faster"), winner(8, "8", "again")}, &notes);
  REQUIRE(t.ok());
  CHECK(t->kernel == "matmul");
  CHECK(t->run_id == "R1");
  CHECK(t->dims == std::vector<std::string>{"M", "N", "K"});
  CHECK(t->params == std::vector<std::string>{"BLOCK_SIZE_M", "BLOCK_SIZE_N"});
  REQUIRE(t->entries.size() == 2);
  CHECK(t->entries[0].shape == std::vector<int64_t>{8, 3, 4});
  CHECK(t->entries[0].config == std::vector<int64_t>{4, 16});
  CHECK(t->entries[0].comment == "fast");
  CHECK(t->entries[1].config == std::vector<int64_t>{8, 16});
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] ==
        "no winner at M=16 N=3 K=4 (every variant failed): left out of the dispatch table");
  CHECK(notes[1] ==
        "the run measured M=8 N=3 K=4 twice in M, N, K: the dispatch table keeps the first");
  // A winner without an integer parameter: the spec changed since the run.
  ShapeWinner odd = winner(8, "x", "?");
  CHECK(MakeDispatchTable(spec, "R1", {odd}, &notes).status().message() ==
        "the winner at M=8 N=3 K=4, matmul_x, has no integer BLOCK_SIZE_M (the spec changed "
        "since the run?)");
}

}  // namespace
}  // namespace ktune::host
