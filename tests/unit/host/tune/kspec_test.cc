// Kernel specs and what khost tune derives from them without building: the spec parser and its
// errors (file:line), argv at a shape, the configuration space, test data (values,
// names, both formats) and the host references that give the golden outputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "common/fs.h"
#include "host/results/test_data_files.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/kspec_best.h"
#include "host/tune/references.h"
#include "host/tune/tensors.h"
#include "tests/unit/host/tune/spec_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

std::string ParseError(const std::string& text) {
  auto spec = ParseKernelSpec(text, "s.kspec");
  REQUIRE(!spec.ok());
  return spec.status().message();
}

TEST_CASE("a spec: every directive, duplicates among candidates dropped in order") {
  const KernelSpec s = Parse(kMatmul);
  CHECK(s.name == "matmul");
  CHECK(s.dir == "/k/matmul");
  CHECK(s.main_sources == std::vector<std::string>{"main.c", "../common/ktune_kernel.c"});
  CHECK(s.kernel_sources == std::vector<std::string>{"matmul_kernel.c"});
  CHECK(s.include_dirs == std::vector<std::string>{"../common"});
  REQUIRE(s.params.size() == 2);
  CHECK(s.params[0].values == std::vector<int64_t>{4, 8, 16});
  CHECK(s.params[0].line == 6);
  CHECK(s.constants == std::vector<std::pair<std::string, int64_t>>{{"GROUP_SIZE_M", 8}});
  REQUIRE(s.constraints.size() == 1);
  CHECK(s.constraints[0].line == 9);
  CHECK(s.shape.size() == 4);
  REQUIRE(s.inputs.size() == 2);
  CHECK(s.inputs[1].dist.kind == Distribution::kNormal);
  CHECK(s.inputs[1].dist.b == 2);
  CHECK(s.inputs[1].seed == 2);
  CHECK(s.inputs[0].dims == std::vector<std::string>{"M", "K"});
  REQUIRE(s.outputs.size() == 1);
  CHECK(s.outputs[0].atol == 1e-4);
  CHECK(s.outputs[0].rtol == 0.5);
  CHECK(s.reference == "matmul");
  CHECK(s.data == DataFormat::kTxt);
}

TEST_CASE("work formulas: flops and bytes over parameters, constants and shape names") {
  const std::string head = "kernel: k\nmain: m.c\nparam: P = 1 2\nconstant: C = 3\nshape: N=4\n";
  auto s = ParseKernelSpec(head + "flops: 2*N*N*P\nbytes: 4*(N + C)\n", "s.kspec");
  REQUIRE_MESSAGE(s.ok(), s.status().message());
  REQUIRE(s->flops);
  CHECK(s->flops->text == "2*N*N*P");
  CHECK(s->flops->line == 6);
  REQUIRE(s->bytes);
  CHECK(s->bytes->line == 7);
  auto none = ParseKernelSpec(head, "s.kspec");
  REQUIRE(none.ok());
  CHECK_FALSE(none->flops);
  CHECK_FALSE(none->bytes);

  CHECK(ParseError(head + "flops: 2*N*Q\n") ==
        "s.kspec:6: flops: Q is not a parameter, constant or shape name of the spec");
  CHECK(ParseError(head + "bytes: N*\n").rfind("s.kspec:6: bytes: ", 0) == 0);
  CHECK(ParseError(head + "flops: N\nflops: 2*N\n") == "s.kspec:7: second 'flops:' line");
}

TEST_CASE("spec errors name the file and the line") {
  const std::string head = "kernel: k\nmain: m.c\nparam: P = 1 2\nshape: N=4\n";
  CHECK(ParseError(head + "oops\n") == "s.kspec:5: expected 'directive: value'");
  CHECK(ParseError(head + "colour: red\n") == "s.kspec:5: unknown directive 'colour'");
  CHECK(ParseError(head + "param: Q = 1 x\n") ==
        "s.kspec:5: parameter Q: 'x' is not an int (C's const int)");
  CHECK(ParseError(head + "param: Q = 3000000000\n") ==
        "s.kspec:5: parameter Q: '3000000000' is not an int (C's const int)");
  CHECK(ParseError(head + "input: X float32 [N] uniform(nan, 1)\n") ==
        "s.kspec:5: input X: 'nan' is not a finite number");
  CHECK(ParseError(head + "input: X float32 [N] constant(1)\noutput: Y float32 [N] atol=inf\n"
                          "reference: softmax\n") ==
        "s.kspec:6: atol must be a finite non-negative number");
  CHECK(ParseError(head + "param: Q =\n") == "s.kspec:5: parameter Q has no candidate values");
  CHECK(ParseError(head + "constant: P = 3\n") == "s.kspec:5: P is defined twice");
  CHECK(ParseError(head + "constant: C = 1 2\n") ==
        "s.kspec:5: constant C must be one int (C's const int)");
  CHECK(ParseError(head + "param: 2X = 1\n") == "s.kspec:5: '2X' is not a name");
  CHECK(ParseError(head + "constraint: P < Q\n") ==
        "s.kspec:5: constraint names unknown parameter Q");
  CHECK(ParseError(head + "constraint: P <\n").rfind("s.kspec:5: ", 0) == 0);
  CHECK(ParseError(head + "shape: N=5\n") == "s.kspec:5: N is defined twice");
  // Found by the bad-input campaign (issue 33): the spec took N=0, which --shape refused, and
  // values no C int holds.
  CHECK(ParseError("kernel: k\nmain: m.c\nparam: P = 1\nshape: N=0\n") ==
        "s.kspec:4: shape N must be an integer from 1 to 2147483647, not '0'");
  CHECK(ParseError("kernel: k\nmain: m.c\nparam: P = 1\nshape: N=2147483648\n") ==
        "s.kspec:4: shape N must be an integer from 1 to 2147483647, not '2147483648'");
  CHECK(ParseError(head + "shape: X\n") == "s.kspec:5: expected NAME=VALUE, got X");
  CHECK(ParseError(head + "args: {N}x{Z}\n") == "s.kspec:5: args '{N}x{Z}': no shape Z");
  CHECK(ParseError(head + "args: {N\n") == "s.kspec:5: args '{N': no '}'");
  CHECK(ParseError(head + "input: X float64 [N] constant(1)\n") ==
        "s.kspec:5: dtype 'float64': expected float32 or int32");
  CHECK(ParseError(head + "input: X float32 [N, W] constant(1)\n") ==
        "s.kspec:5: tensor X: dimension W is not a shape name");
  CHECK(ParseError(head + "input: X float32 [] constant(1)\n") ==
        "s.kspec:5: tensor X: empty dimension");
  CHECK(ParseError(head + "input: X float32 [N] poisson(1)\n") ==
        "s.kspec:5: input X: unknown distribution 'poisson'");
  CHECK(ParseError(head + "input: X float32 [N] uniform(2, 1)\n") ==
        "s.kspec:5: input X: uniform's low is above its high");
  CHECK(ParseError(head + "input: X float32 [N] normal(0)\n") ==
        "s.kspec:5: input X: normal takes 2 numbers");
  CHECK(ParseError(head + "input: X float32 [N] constant(1) atol=1\n") ==
        "s.kspec:5: unknown setting 'atol=1' (inputs take seed=, outputs atol= and rtol=)");
  CHECK(ParseError(head + "input: X float32 [N] constant(1)\ninput: X int32 [N] constant(1)\n") ==
        "s.kspec:6: tensor X is defined twice");
  CHECK(ParseError(head + "input: X float32 [N] constant(1)\noutput: Y float32 [N]\n") ==
        "s.kspec:6: outputs need a 'reference:' to compute their golden values");
  CHECK(ParseError(head + "reference: fft\n") ==
        "s.kspec:5: unknown reference 'fft' (known: matmul, softmax, layernorm)");
  CHECK(ParseError(head + "input: X float32 [N] constant(1)\noutput: Y float32 [N]\n"
                          "reference: matmul\n") ==
        "s.kspec:7: reference matmul takes 2 inputs and gives 1 outputs; the spec has 1 and 1");
  CHECK(ParseError(head + "data: hdf5\n") == "s.kspec:5: data: expected auto, txt or bin");
  CHECK(ParseError(head + "input: X int32 [N] uniform(0, 1e12)\n") ==
        "s.kspec:5: input X: 1e+12 is outside int32");
  CHECK(ParseError(head + "input: X int32 [N] uniform(0.2, 0.8)\n") ==
        "s.kspec:5: input X: no integer lies in uniform(0.2, 0.8)");
  CHECK(ParseError(head + "constraint: " + std::string(200, '(') + "P" + std::string(200, ')') +
                   "\n") == "s.kspec:5: nested more than 100 levels deep");
  CHECK(
      ParseError(head + "constraint: P" + std::string(5000, '!') + "\n").rfind("s.kspec:5: ", 0) ==
      0);
  std::string chain = "constraint: P";
  for (int i = 0; i < 3000; ++i) chain += "+1";
  CHECK(ParseError(head + chain + "\n") == "s.kspec:5: longer than 4096 characters");
  CHECK(ParseError("main: m.c\nparam: P = 1\n") == "s.kspec: no 'kernel:' line");
  CHECK(ParseError("kernel: k\nparam: P = 1\n") == "s.kspec: no 'main:' line");
  CHECK(ParseError("kernel: k\nmain: m.c\n") == "s.kspec: no 'param:' line");
}

TEST_CASE("best: the configuration --apply-best chose, every parameter once") {
  const std::string head = "kernel: k\nmain: m.c\nparam: P = 1 2\nparam: Q = 3 4\nshape: N=4\n";
  const KernelSpec spec = Parse(head + "best: P=2 Q=3\n");
  CHECK(spec.best == std::vector<std::pair<std::string, int64_t>>{{"P", 2}, {"Q", 3}});
  CHECK(Parse(head).best.empty());
  CHECK(ParseError(head + "best: P=2 R=1\n") == "s.kspec:6: best: R is not a parameter");
  CHECK(ParseError(head + "best: P=2\n") ==
        "s.kspec:6: best: gives 1 of the 2 parameters (khost tune --apply-best rewrites it)");
  CHECK(ParseError(head + "best: P=2 P=1\n") == "s.kspec:6: best: P is given twice");
  CHECK(ParseError(head + "best: P=x Q=3\n") ==
        "s.kspec:6: best: expected NAME=VALUE with an int value, got P=x");
  CHECK(ParseError(head + "best: P=1 Q=3\nbest: P=1 Q=3\n") == "s.kspec:7: second 'best:' line");
}

TEST_CASE("comments: whole lines, and after a space or tab") {
  const KernelSpec s = Parse(
      "  # leading spaces\nkernel: k   # the kernel\nmain: m.c\t# main\n"
      "param: P = 1 2 # two\n");
  CHECK(s.name == "k");
  CHECK(s.main_sources == std::vector<std::string>{"m.c"});
  CHECK(s.params[0].values == std::vector<int64_t>{1, 2});
  // A '#' inside a word is not a comment (here it makes the constraint malformed).
  CHECK(ParseError("kernel: k\nmain: m.c\nparam: P = 1\nconstraint: P#1 > 0\n")
            .rfind("s.kspec:4: ", 0) == 0);
  // The one rule, which --apply-best's rewrite keeps a best: line's comment by too.
  CHECK(CommentStart("# whole line") == 0);
  CHECK(CommentStart("best: P=1 # mine") == 10);
  CHECK(CommentStart("best: P=1\t#tab") == 10);
  CHECK(CommentStart("cflags: -DX=#1") == std::string_view::npos);
  CHECK(CommentStart("") == std::string_view::npos);
}

TEST_CASE("specs load by kernel name or by path") {
  const std::string dir = (std::filesystem::temp_directory_path() / "ktune-kspec-test").string();
  std::filesystem::remove_all(dir);
  REQUIRE(MakeDirs(dir + "/matmul").ok());
  REQUIRE(WriteFileAtomic(dir + "/matmul/matmul.kspec", kMatmul).ok());
  auto by_name = LoadKernelSpec("matmul", dir);
  REQUIRE(by_name.ok());
  CHECK(by_name->path == dir + "/matmul/matmul.kspec");
  CHECK(by_name->dir == dir + "/matmul");
  auto by_path = LoadKernelSpec(dir + "/matmul/matmul.kspec", "/nowhere");
  REQUIRE(by_path.ok());
  CHECK(by_path->name == "matmul");
  auto missing = LoadKernelSpec("softmax", dir);
  REQUIRE(!missing.ok());
  CHECK(missing.status().message().rfind("no kernel spec " + dir + "/softmax/softmax.kspec", 0) ==
        0);
  CHECK(!LoadKernelSpec("../x", dir).ok());
  std::filesystem::remove_all(dir);
}

// Found by the bad-input campaign (issue 33): a parameter of 10^6 values took over 120 s (each
// value looked for among those before it); now linear, and a stated limit.
TEST_CASE("a parameter's values: duplicates dropped in one pass, at most kMaxParamValues") {
  const std::string head = "kernel: k\nmain: m.c\nshape: N=4\n";
  std::string values;
  for (size_t v = 0; v < kMaxParamValues; ++v) values += " " + std::to_string(v % 2 ? v : v / 2);
  auto spec = ParseKernelSpec(head + "param: P =" + values + "\n", "s.kspec");
  REQUIRE(spec.ok());
  // 0, 1, 1 (2/2), 3, 2 (4/2)...: each value once, in the order first seen.
  CHECK(spec->params[0].values.size() == kMaxParamValues / 2 + kMaxParamValues / 4);
  CHECK(std::vector<int64_t>(spec->params[0].values.begin(), spec->params[0].values.begin() + 4) ==
        std::vector<int64_t>{0, 1, 3, 2});
  std::string too_many;
  for (size_t v = 0; v <= kMaxParamValues; ++v) too_many += " " + std::to_string(v);
  CHECK(ParseKernelSpec(head + "param: P =" + too_many + "\n", "s.kspec").status().message() ==
        "s.kspec:4: parameter P has more than 4096 candidate values (a space to search, not to "
        "list: see khost tune --strategy)");
}

TEST_CASE("tensor dimensions and argv at a shape") {
  const KernelSpec s = Parse(kMatmul);
  using Shape = std::vector<std::pair<std::string, int64_t>>;
  const Shape shape = {{"M", 64}, {"N", 3}, {"K", 7}, {"RUN_COUNT", 5}};
  auto args = ExpandArgs(s, shape);
  REQUIRE(args.ok());
  CHECK(*args == std::vector<std::string>{"64x3x7x5", "--flag"});
  auto dims = TensorDims(s.inputs[0], shape);
  REQUIRE(dims.ok());
  CHECK(*dims == std::vector<int64_t>{64, 7});
  const Shape huge = {{"M", 100000}, {"N", 3}, {"K", 100000}, {"RUN_COUNT", 5}};
  CHECK(TensorDims(s.inputs[0], huge).status().message() ==
        "tensor A is too large for test data (more than 2^26 elements)");
  const Shape zero = {{"M", 64}, {"N", 3}, {"K", 0}, {"RUN_COUNT", 5}};
  CHECK(TensorDims(s.inputs[0], zero).status().message() ==
        "tensor A: dimension 0 is not positive");
}

}  // namespace
}  // namespace ktune::host
