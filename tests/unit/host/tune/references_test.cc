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
