// Kernel specs and what khost tune derives from them without building: the spec parser and its
// errors (file:line), shape overrides and argv, the configuration space, test data (values,
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

namespace ktune::host {
namespace {

const char kMatmul[] =
    "# a comment\n"
    "kernel: matmul\n"
    "main: main.c ../common/ktune_kernel.c\n"
    "kernel_source: matmul_kernel.c\n"
    "include: ../common\n"
    "param: BLOCK_SIZE_M = 4 8 16 8 4\n"
    "param: BLOCK_SIZE_N = 8 16\n"
    "constant: GROUP_SIZE_M = 8\n"
    "constraint: BLOCK_SIZE_M * BLOCK_SIZE_N <= 64\n"
    "shape: M=2 N=3 K=4 RUN_COUNT=5\n"
    "args: {M}x{N}x{K}x{RUN_COUNT} --flag\n"
    "input: A float32 [M, K] uniform(-1, 1) seed=1\n"
    "input: B float32 [K, N] normal(0, 2) seed=2\n"
    "output: C float32 [M, N] atol=1e-4 rtol=0.5\n"
    "reference: matmul\n"
    "data: txt\n";

KernelSpec Parse(const std::string& text) {
  auto spec = ParseKernelSpec(text, "/k/matmul/matmul.kspec");
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  return *spec;
}

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

TEST_CASE("WithBestLine replaces an earlier best: line and its comment, or appends") {
  const std::string body = "kernel: k\nparam: P = 1 2\n";
  CHECK(WithBestLine(body, "# khost tune --apply-best: run r1", "best: P=2") ==
        body + "\n# khost tune --apply-best: run r1\nbest: P=2\n");
  const std::string applied = WithBestLine(body, "# khost tune --apply-best: run r1", "best: P=2");
  CHECK(WithBestLine(applied, "# khost tune --apply-best: run r2", "best: P=1") ==
        body + "\n# khost tune --apply-best: run r2\nbest: P=1\n");
  // The parser's reading of the key ("best :"), a trailing comment kept, CRLF kept.
  CHECK(WithBestLine("kernel: k\nbest : P=1  # board A\n", "# khost tune --apply-best: r4",
                     "best: P=2") ==
        "kernel: k\n# khost tune --apply-best: r4\nbest: P=2  # board A\n");
  CHECK(WithBestLine("kernel: k\r\nparam: P = 1 2\r\n", "# khost tune --apply-best: r5",
                     "best: P=1") ==
        "kernel: k\r\nparam: P = 1 2\r\n\r\n# khost tune --apply-best: r5\r\nbest: P=1\r\n");
  // A commented-out best: is not a best: line.
  CHECK(WithoutBestLine("kernel: k\n# best: P=1\n") == "kernel: k\n# best: P=1\n");
  CHECK(WithoutBestLine(applied) == body + "\n");
  // A hand-written best: line is replaced in place; other comments stay.
  CHECK(WithBestLine("kernel: k\n# mine\nbest: P=1\nparam: P = 1 2\n",
                     "# khost tune --apply-best: r3", "best: P=2") ==
        "kernel: k\n# mine\n# khost tune --apply-best: r3\nbest: P=2\nparam: P = 1 2\n");
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

TEST_CASE("shape overrides, tensor dimensions and argv") {
  const KernelSpec s = Parse(kMatmul);
  auto shape = ApplyShapeOverrides(s, {"M=64", "K=7"});
  REQUIRE(shape.ok());
  CHECK(*shape == std::vector<std::pair<std::string, int64_t>>{
                      {"M", 64}, {"N", 3}, {"K", 7}, {"RUN_COUNT", 5}});
  auto args = ExpandArgs(s, *shape);
  REQUIRE(args.ok());
  CHECK(*args == std::vector<std::string>{"64x3x7x5", "--flag"});
  auto dims = TensorDims(s.inputs[0], *shape);
  REQUIRE(dims.ok());
  CHECK(*dims == std::vector<int64_t>{64, 7});

  CHECK(ApplyShapeOverrides(s, {"Q=1"}).status().message() ==
        "--shape Q=1: /k/matmul/matmul.kspec has no shape Q");
  CHECK(ApplyShapeOverrides(s, {"M"}).status().message() == "--shape M: expected NAME=VALUE");
  CHECK(!ApplyShapeOverrides(s, {"M=-1"}).ok());
  auto huge = ApplyShapeOverrides(s, {"M=100000", "K=100000"});
  REQUIRE(huge.ok());
  CHECK(TensorDims(s.inputs[0], *huge).status().message() ==
        "tensor A is too large for test data (more than 2^26 elements)");
  auto zero = ApplyShapeOverrides(s, {"K=0"});
  REQUIRE(zero.ok());
  CHECK(TensorDims(s.inputs[0], *zero).status().message() ==
        "tensor A: dimension 0 is not positive");
}

TEST_CASE("the space: the grid in order, filtered by constraints over params, constants, shape") {
  KernelSpec s = Parse(kMatmul);
  auto space = EnumerateSpace(s, {});
  REQUIRE(space.ok());
  CHECK(space->grid_size == 6);
  // 4*8=32, 4*16=64, 8*8=64 pass; 8*16=128, 16*8=128, 16*16=256 do not.
  CHECK(space->configs == std::vector<Config>{{4, 8}, {4, 16}, {8, 8}});
  CHECK(space->feasible == 3);

  s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M <= M * GROUP_SIZE_M && " +
            "BLOCK_SIZE_N % 16 == 0\n");
  auto both = EnumerateSpace(s, {});
  REQUIRE(both.ok());
  CHECK(both->configs == std::vector<Config>{{4, 16}});

  s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M > 1000\n");
  CHECK(EnumerateSpace(s, {}).status().message() ==
        "/k/matmul/matmul.kspec: no configuration of 6 satisfies the constraints (lines 9, 17)");
  s = Parse(std::string(kMatmul) + "constraint: BLOCK_SIZE_M / (BLOCK_SIZE_N - 8)\n");
  CHECK(EnumerateSpace(s, {}).status().message().rfind(
            "/k/matmul/matmul.kspec:17: constraint BLOCK_SIZE_M / (BLOCK_SIZE_N - 8): ", 0) == 0);

  std::string big = "kernel: k\nmain: m.c\n";
  for (int i = 0; i < 8; ++i) big += "param: P" + std::to_string(i) + " = 1 2 3 4 5 6 7 8\n";
  CHECK(EnumerateSpace(Parse(big), {})
            .status()
            .message()
            .find("the grid has more than 10000000 configurations") != std::string::npos);
}

TEST_CASE("--sample: reproducible, in grid order, unique; all when N covers the space") {
  std::string text = "kernel: k\nmain: m.c\nparam: A = 1 2 3 4 5 6 7 8\nparam: B = 1 2 3 4 5 6\n";
  const KernelSpec s = Parse(text);
  auto a = EnumerateSpace(s, {5, 42});
  auto again = EnumerateSpace(s, {5, 42});
  auto other = EnumerateSpace(s, {5, 43});
  REQUIRE(a.ok());
  REQUIRE(again.ok());
  REQUIRE(other.ok());
  CHECK(a->configs.size() == 5);
  CHECK(a->feasible == 48);
  CHECK(a->configs == again->configs);
  CHECK(a->configs != other->configs);
  CHECK(std::is_sorted(a->configs.begin(), a->configs.end()));  // grid order is lexicographic
  CHECK(std::set<Config>(a->configs.begin(), a->configs.end()).size() == 5);
  auto all = EnumerateSpace(s, {100, 1});
  REQUIRE(all.ok());
  CHECK(all->configs.size() == 48);
}

TensorSpec Tensor(DType dtype, Distribution::Kind kind, double a, double b, uint64_t seed) {
  TensorSpec t;
  t.dtype = dtype;
  t.dist.kind = kind;
  t.dist.a = a;
  t.dist.b = b;
  t.seed = seed;
  return t;
}

TEST_CASE("generated values: seeded, in range, of their dtype") {
  const TensorSpec u = Tensor(DType::kFloat32, Distribution::kUniform, -1, 1, 7);
  const std::vector<double> v = GenerateValues(u, 1000);
  CHECK(v == GenerateValues(u, 1000));
  CHECK(v != GenerateValues(Tensor(DType::kFloat32, Distribution::kUniform, -1, 1, 8), 1000));
  double sum = 0;
  for (double x : v) {
    CHECK(x >= -1);
    CHECK(x <= 1);
    CHECK(static_cast<double>(static_cast<float>(x)) == x);
    sum += x;
  }
  CHECK(std::abs(sum / 1000) < 0.1);  // mean of U(-1, 1): 0, standard error 0.018

  std::set<double> seen;
  for (double x :
       GenerateValues(Tensor(DType::kInt32, Distribution::kUniform, -1.5, 1.5, 1), 300)) {
    CHECK(x == std::round(x));
    seen.insert(x);
  }
  CHECK(seen == std::set<double>{-1, 0, 1});  // the integers in [-1.5, 1.5], all of them
  for (double x : GenerateValues(Tensor(DType::kInt32, Distribution::kNormal, 0, 1e12, 1), 50)) {
    CHECK(x >= -2147483648.0);
    CHECK(x <= 2147483647.0);
  }
  CHECK(GenerateValues(Tensor(DType::kFloat32, Distribution::kConstant, 2.5, 0, 0), 3) ==
        std::vector<double>{2.5, 2.5, 2.5});
  const std::vector<double> n =
      GenerateValues(Tensor(DType::kFloat32, Distribution::kNormal, 10, 2, 3), 4000);
  double mean = 0, var = 0;
  for (double x : n) mean += x / 4000;
  for (double x : n) var += (x - mean) * (x - mean) / 4000;
  CHECK(std::abs(mean - 10) < 0.2);  // standard error 0.032
  CHECK(std::abs(std::sqrt(var) - 2) < 0.2);
}

TEST_CASE("tensor file names flatten to rows x cols; the format follows the size") {
  CHECK(TensorFileName({192, 64}, 1, DataFormat::kTxt) == "matrix_192x64_1.txt");
  CHECK(TensorFileName({2, 3, 4}, 3, DataFormat::kBin) == "matrix_6x4_3.bin");
  CHECK(TensorFileName({768}, 2, DataFormat::kTxt) == "matrix_1x768_2.txt");
  CHECK(ChooseFormat(DataFormat::kAuto, kBinaryThreshold) == DataFormat::kTxt);
  CHECK(ChooseFormat(DataFormat::kAuto, kBinaryThreshold + 1) == DataFormat::kBin);
  CHECK(ChooseFormat(DataFormat::kTxt, kBinaryThreshold + 1) == DataFormat::kTxt);
  CHECK(ChooseFormat(DataFormat::kBin, 1) == DataFormat::kBin);
}

TEST_CASE("test data names parse back; anything else is not one") {
  auto f = ParseTestDataFileName("matrix_64x32_3.bin");
  REQUIRE(f.has_value());
  CHECK(f->rows == 64);
  CHECK(f->cols == 32);
  CHECK(f->index == 3);
  CHECK(f->binary);
  f = ParseTestDataFileName(TestDataFileName(1, 768, 0, false));
  REQUIRE(f.has_value());
  CHECK(f->index == 0);
  CHECK(!f->binary);
  for (const char* other :
       {"matrix_64x32_1.csv", "matrix_64x32.txt", "matrix_64_1.txt", "matrix_x32_1.txt",
        "matrix_64x32_.txt", "matrix_64x32_01.txt", "matrix_-4x32_1.txt", "matrix_64x3a_1.txt",
        "Matrix_64x32_1.txt", "matrix_1_2x3.txt", ".txt", "matrix_99999999999999999999x1_1.txt"}) {
    CAPTURE(other);
    CHECK(!ParseTestDataFileName(other).has_value());
  }
}

TEST_CASE("data: auto is binary above the threshold only for mains that call ktune's loader") {
  CHECK(CallsKtuneLoader("float* a = kt_load_f32(\"matmul\", 1, M, K);"));
  CHECK(CallsKtuneLoader("int32_t* i = kt_load_i32 (k, 2, 1, n);"));
  CHECK(CallsKtuneLoader("x=kt_load_f32\t(k,1,1,1);"));
  // A seed-style main: its own reader, and ktune's name only as part of another or unused.
  CHECK(!CallsKtuneLoader("float* a = getDB(\"matmul\", shape, 1);"));
  CHECK(!CallsKtuneLoader("my_kt_load_f32(k, 1, 1, 1); kt_load_f32x(k);"));
  CHECK(!CallsKtuneLoader("#include \"ktune_kernel.h\"  // declares kt_load_f32"));
  CHECK(!CallsKtuneLoader("kt_load_f32"));
  CHECK(ResolveDataFormat(DataFormat::kAuto, true) == DataFormat::kAuto);
  CHECK(ResolveDataFormat(DataFormat::kAuto, false) == DataFormat::kTxt);
  CHECK(ResolveDataFormat(DataFormat::kBin, false) == DataFormat::kBin);
  CHECK(ResolveDataFormat(DataFormat::kTxt, true) == DataFormat::kTxt);
}

TEST_CASE("both formats round-trip exactly; damaged files are errors") {
  HostTensor f{{2, 3}, {1.5, -0.1f, 3e-8f, 1e10f, 0, -7}};
  for (double& x : f.values) x = static_cast<float>(x);
  const std::string txt = EncodeTensor(f, DType::kFloat32, DataFormat::kTxt);
  CHECK(txt.rfind("2 3\n1.5 ", 0) == 0);
  CHECK(std::count(txt.begin(), txt.end(), '\n') == 3);
  const std::string bin = EncodeTensor(f, DType::kFloat32, DataFormat::kBin);
  CHECK(bin.size() == 32 + 6 * 4);
  CHECK(std::memcmp(bin.data(), "KTTENSR1", 8) == 0);
  // TXT's 9 significant digits give back the float exactly (as a float); BIN gives it as is.
  for (const std::string& bytes : {txt, bin}) {
    auto back = DecodeTensor(bytes, "f");
    REQUIRE(back.ok());
    CHECK(back->dims == f.dims);
    REQUIRE(back->values.size() == f.values.size());
    for (size_t k = 0; k < f.values.size(); ++k) {
      CHECK(static_cast<float>(back->values[k]) == f.values[k]);
    }
  }
  CHECK(DecodeTensor(bin, "f")->values == f.values);
  HostTensor i{{1, 4}, {0, -1, 2147483647, -2147483648.0}};
  CHECK(EncodeTensor(i, DType::kInt32, DataFormat::kTxt) == "1 4\n0 -1 2147483647 -2147483648\n");
  for (DataFormat format : {DataFormat::kTxt, DataFormat::kBin}) {
    auto back = DecodeTensor(EncodeTensor(i, DType::kInt32, format), "i");
    REQUIRE(back.ok());
    CHECK(back->values == i.values);
  }
  // A 3-D tensor is written as (2*3) x 4.
  HostTensor d3{{2, 3, 4}, std::vector<double>(24, 1)};
  CHECK(EncodeTensor(d3, DType::kFloat32, DataFormat::kTxt).rfind("6 4\n", 0) == 0);

  CHECK(DecodeTensor(bin.substr(0, 20), "b").status().message() == "b: truncated header");
  CHECK(DecodeTensor(bin.substr(0, bin.size() - 1), "b").status().message() ==
        "b: 2x3 does not fit in 55 bytes");
  CHECK(DecodeTensor(bin + "xxxx", "b").status().message() == "b: size does not match its header");
  std::string huge = bin;
  huge[16] = '\xff';  // rows 255 do not fit in 24 bytes
  CHECK(DecodeTensor(huge, "b").status().message().find("does not fit") != std::string::npos);
  CHECK(DecodeTensor("2 2\n1 2 3\n", "t").status().message() == "t: 3 values for 2x2");
  CHECK(DecodeTensor("2 2\n1 2 3 x\n", "t").status().message() == "t: 'x' is not a number");
  CHECK(DecodeTensor("two 2\n", "t").status().message() == "t: expected 'rows cols' first");
}

TEST_CASE("test data: inputs then golden outputs, computed by the reference") {
  const KernelSpec s = Parse(
      "kernel: matmul\nmain: m.c\nparam: P = 1\nshape: M=2 N=2 K=3\n"
      "input: A float32 [M, K] constant(2)\n"
      "input: B float32 [K, N] uniform(-1, 1) seed=9\n"
      "output: C float32 [M, N]\nreference: matmul\n");
  auto data = MakeTestData(s, s.shape, s.data);
  REQUIRE(data.ok());
  REQUIRE(data->files.size() == 3);
  // Numbered from 1 as the seed numbers them: the inputs in order, then the outputs.
  CHECK(data->files[0].first == "matrix_2x3_1.txt");
  CHECK(data->files[1].first == "matrix_3x2_2.txt");
  CHECK(data->files[2].first == "matrix_2x2_3.txt");
  CHECK(DescribeTestData(s, *data) == "A _1, B _2, golden C _3 (TXT)");
  auto bin = MakeTestData(s, s.shape, DataFormat::kBin);
  REQUIRE(bin.ok());
  CHECK(bin->files[2].first == "matrix_2x2_3.bin");
  CHECK(DescribeTestData(s, *bin) == "A _1, B _2, golden C _3 (BIN)");
  auto b = DecodeTensor(data->files[1].second, "B");
  auto c = DecodeTensor(data->files[2].second, "C");
  REQUIRE(b.ok());
  REQUIRE(c.ok());
  // Every row of A is 2s: C[i][j] = 2 * (B[0][j] + B[1][j] + B[2][j]) in double, written as a
  // float (the TXT digits give the floats back exactly).
  auto f = [](double v) { return static_cast<float>(v); };
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const double want = 2.0 * (double{f(b->values[j])} + double{f(b->values[2 + j])} +
                                 double{f(b->values[4 + j])});
      CHECK(f(c->values[i * 2 + j]) == f(want));
    }
  }
  auto again = MakeTestData(s, s.shape, s.data);
  REQUIRE(again.ok());
  CHECK(again->files == data->files);

  const KernelSpec bad = Parse(
      "kernel: matmul\nmain: m.c\nparam: P = 1\nshape: M=2 N=2 K=3\n"
      "input: A float32 [M, K] constant(2)\ninput: B float32 [M, N] constant(1)\n"
      "output: C float32 [M, N]\nreference: matmul\n");
  CHECK(MakeTestData(bad, bad.shape, bad.data).status().message() ==
        "/k/matmul/matmul.kspec: reference matmul cannot take inputs [2, 3] [2, 2] to outputs "
        "[2, 2]");
}

TEST_CASE("references: matmul, softmax and layernorm on hand-worked cases") {
  const Reference* matmul = FindReference("matmul");
  REQUIRE(matmul != nullptr);
  std::vector<HostTensor> out = {{{2, 2}, std::vector<double>(4)}};
  REQUIRE(
      matmul->compute({{{2, 3}, {1, 2, 3, 4, 5, 6}}, {{3, 2}, {7, 8, 9, 10, 11, 12}}}, &out).ok());
  CHECK(out[0].values == std::vector<double>{58, 64, 139, 154});

  const Reference* softmax = FindReference("softmax");
  REQUIRE(softmax != nullptr);
  out = {{{2, 2}, std::vector<double>(4)}};
  REQUIRE(softmax->compute({{{2, 2}, {0, std::log(3.0), 5, 5}}}, &out).ok());
  CHECK(out[0].values[0] == doctest::Approx(0.25));
  CHECK(out[0].values[1] == doctest::Approx(0.75));
  CHECK(out[0].values[2] == doctest::Approx(0.5));
  CHECK(out[0].values[3] == doctest::Approx(0.5));

  const Reference* layernorm = FindReference("layernorm");
  REQUIRE(layernorm != nullptr);
  out = {{{1, 2}, std::vector<double>(2)}};
  // x = [1, 3]: mean 2, variance 1; y = (x - 2) / sqrt(1 + eps) * gamma + beta.
  REQUIRE(layernorm->compute({{{1, 2}, {1, 3}}, {{2}, {2, 3}}, {{2}, {0.5, -1}}}, &out).ok());
  const double inv = 1 / std::sqrt(1 + kLayernormEpsilon);
  CHECK(out[0].values[0] == doctest::Approx(-1 * inv * 2 + 0.5));
  CHECK(out[0].values[1] == doctest::Approx(1 * inv * 3 - 1));

  out = {{{2, 2}, std::vector<double>(4)}};
  CHECK(!layernorm->compute({{{2, 2}, {1, 2, 3, 4}}, {{3}, {1, 1, 1}}, {{2}, {0, 0}}}, &out).ok());
  CHECK(!softmax->compute({{{2, 3}, std::vector<double>(6)}}, &out).ok());
  CHECK(FindReference("fft") == nullptr);
  CHECK(ReferenceNames() == "matmul, softmax, layernorm");
}

}  // namespace
}  // namespace ktune::host
