#include "host/tune/references.h"

#include <cmath>

#include "common/strings.h"

namespace ktune::host {
namespace {

std::string DimsText(const std::vector<int64_t>& dims) {
  std::vector<std::string> items;
  for (int64_t d : dims) items.push_back(std::to_string(d));
  return "[" + Join(items, ", ") + "]";
}

Status ShapeError(const char* op, const std::vector<HostTensor>& in,
                  const std::vector<HostTensor>& out) {
  std::string s = std::string(op) + " cannot take inputs";
  for (const HostTensor& t : in) s += " " + DimsText(t.dims);
  s += " to outputs";
  for (const HostTensor& t : out) s += " " + DimsText(t.dims);
  return InvalidArgument(s);
}

// Rows and the last dimension of a tensor seen as (product of leading dims) x last dim.
std::pair<int64_t, int64_t> Rows(const HostTensor& t) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < t.dims.size(); ++i) rows *= t.dims[i];
  return {rows, t.dims.empty() ? 1 : t.dims.back()};
}

// C[M,N] = A[M,K] B[K,N]
Status Matmul(const std::vector<HostTensor>& in, std::vector<HostTensor>* out) {
  const HostTensor &a = in[0], &b = in[1];
  HostTensor& c = (*out)[0];
  if (a.dims.size() != 2 || b.dims.size() != 2 || c.dims.size() != 2 || a.dims[1] != b.dims[0] ||
      c.dims[0] != a.dims[0] || c.dims[1] != b.dims[1]) {
    return ShapeError("matmul", in, *out);
  }
  const int64_t M = a.dims[0], K = a.dims[1], N = b.dims[1];
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += a.values[i * K + k] * b.values[k * N + j];
      c.values[i * N + j] = sum;
    }
  }
  return Status::Ok();
}

// Y = softmax(X) along the last dimension.
Status Softmax(const std::vector<HostTensor>& in, std::vector<HostTensor>* out) {
  const HostTensor& x = in[0];
  HostTensor& y = (*out)[0];
  if (x.dims != y.dims || x.dims.empty()) return ShapeError("softmax", in, *out);
  const auto [rows, cols] = Rows(x);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = &x.values[r * cols];
    double max = row[0];
    for (int64_t c = 1; c < cols; ++c) max = std::max(max, row[c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - max);
    for (int64_t c = 0; c < cols; ++c) y.values[r * cols + c] = std::exp(row[c] - max) / sum;
  }
  return Status::Ok();
}

// Y = (X - mean) / sqrt(var + eps) * gamma + beta along the last dimension (population
// variance, as torch.nn.LayerNorm).
Status Layernorm(const std::vector<HostTensor>& in, std::vector<HostTensor>* out) {
  const HostTensor &x = in[0], &gamma = in[1], &beta = in[2];
  HostTensor& y = (*out)[0];
  if (x.dims != y.dims || x.dims.empty() || gamma.dims.size() != 1 || beta.dims.size() != 1 ||
      gamma.dims[0] != x.dims.back() || beta.dims[0] != x.dims.back()) {
    return ShapeError("layernorm", in, *out);
  }
  const auto [rows, cols] = Rows(x);
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = &x.values[r * cols];
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mean += row[c];
    mean /= static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
    var /= static_cast<double>(cols);
    const double inv = 1 / std::sqrt(var + kLayernormEpsilon);
    for (int64_t c = 0; c < cols; ++c) {
      y.values[r * cols + c] = (row[c] - mean) * inv * gamma.values[c] + beta.values[c];
    }
  }
  return Status::Ok();
}

const Reference kReferences[] = {
    {"matmul", "C[M,N] = A[M,K] B[K,N]", 2, 1, Matmul},
    {"softmax", "softmax along the last dimension", 1, 1, Softmax},
    {"layernorm", "layer norm along the last dimension with gamma and beta, eps 1e-5", 3, 1,
     Layernorm},
};

}  // namespace

const Reference* FindReference(std::string_view name) {
  for (const Reference& r : kReferences) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

std::string ReferenceNames() {
  std::vector<std::string> names;
  for (const Reference& r : kReferences) names.emplace_back(r.name);
  return Join(names, ", ");
}

}  // namespace ktune::host
