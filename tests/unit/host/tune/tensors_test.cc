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
#include "tests/unit/host/tune/spec_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

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

}  // namespace
}  // namespace ktune::host
