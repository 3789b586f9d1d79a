// Host reference implementations of the example kernels: they compute the golden outputs that
// every variant's output is checked against. Inputs hold float32 or int32 values widened to
// double; the references compute in double and the golden files are written in the output's
// dtype.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct HostTensor {
  std::vector<int64_t> dims;
  std::vector<double> values;  // row-major
};

struct Reference {
  const char* name;
  const char* description;
  size_t inputs, outputs;
  // `out` arrives with each output's dims set by the spec and values sized to match; a shape that
  // does not fit the operation is an error naming both.
  Status (*compute)(const std::vector<HostTensor>& in, std::vector<HostTensor>* out);
};

const Reference* FindReference(std::string_view name);
std::string ReferenceNames();  // "matmul, softmax, layernorm"

// layernorm's epsilon; kernels/layernorm uses the same.
inline constexpr double kLayernormEpsilon = 1e-5;

}  // namespace ktune::host
