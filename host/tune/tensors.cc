#include "host/tune/tensors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <random>

#include "common/random.h"
#include "common/strings.h"
#include "host/results/test_data_files.h"

namespace ktune::host {
namespace {

constexpr char kMagic[8] = {'K', 'T', 'T', 'E', 'N', 'S', 'R', '1'};
constexpr size_t kHeaderBytes = 32;

std::pair<int64_t, int64_t> Flatten(const std::vector<int64_t>& dims) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];
  return {rows, dims.empty() ? 1 : dims.back()};
}

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLe(const std::string& in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(in[at + i])} << (8 * i);
  return v;
}

}  // namespace

std::vector<double> GenerateValues(const TensorSpec& t, int64_t n) {
  std::mt19937_64 rng(t.seed);
  std::vector<double> v(static_cast<size_t>(n));
  const Distribution& d = t.dist;
  for (double& x : v) {
    switch (d.kind) {
      case Distribution::kConstant:
        x = d.a;
        break;
      case Distribution::kUniform:
        if (t.dtype == DType::kInt32) {
          // The integers in [low, high], each equally likely.
          const double lo = std::ceil(d.a), hi = std::floor(d.b);
          x = std::min(hi, lo + std::floor(UniformUnit(rng) * (hi - lo + 1)));
        } else {
          x = d.a + UniformUnit(rng) * (d.b - d.a);
        }
        break;
      case Distribution::kNormal: {
        // Box-Muller; 1 - UniformUnit() is in (0, 1], so the log is finite.
        const double r = std::sqrt(-2 * std::log(1 - UniformUnit(rng)));
        x = d.a + d.b * r * std::cos(2 * std::numbers::pi * UniformUnit(rng));
        break;
      }
    }
    // int32: rounded, and clamped (a normal's tail can pass the range the spec checked).
    x = t.dtype == DType::kInt32 ? std::clamp(std::round(x), -2147483648.0, 2147483647.0)
                                 : static_cast<double>(static_cast<float>(x));
  }
  return v;
}

std::string TensorFileName(const std::vector<int64_t>& dims, size_t idx, DataFormat format) {
  const auto [rows, cols] = Flatten(dims);
  return TestDataFileName(rows, cols, idx, format == DataFormat::kBin);
}

bool CallsKtuneLoader(std::string_view source) {
  auto ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (std::string_view name : {"kt_load_f32", "kt_load_i32"}) {
    for (size_t at = source.find(name); at != std::string_view::npos;
         at = source.find(name, at + 1)) {
      if (at > 0 && ident(source[at - 1])) continue;
      size_t next = at + name.size();
      while (next < source.size() && (source[next] == ' ' || source[next] == '\t')) ++next;
      if (next < source.size() && source[next] == '(') return true;
    }
  }
  return false;
}

DataFormat ResolveDataFormat(DataFormat wanted, bool main_calls_loader) {
  return wanted == DataFormat::kAuto && !main_calls_loader ? DataFormat::kTxt : wanted;
}

DataFormat ChooseFormat(DataFormat wanted, int64_t elements) {
  if (wanted != DataFormat::kAuto) return wanted;
  return elements > kBinaryThreshold ? DataFormat::kBin : DataFormat::kTxt;
}

std::string EncodeTensor(const HostTensor& t, DType dtype, DataFormat format) {
  const auto [rows, cols] = Flatten(t.dims);
  std::string out;
  if (format == DataFormat::kBin) {
    out.append(kMagic, sizeof kMagic);
    PutLe(&out, dtype == DType::kFloat32 ? 0 : 1, 4);
    PutLe(&out, 0, 4);
    PutLe(&out, static_cast<uint64_t>(rows), 8);
    PutLe(&out, static_cast<uint64_t>(cols), 8);
    for (double v : t.values) {
      uint32_t bits;
      if (dtype == DType::kFloat32) {
        const float f = static_cast<float>(v);
        std::memcpy(&bits, &f, 4);
      } else {
        bits = static_cast<uint32_t>(static_cast<int32_t>(v));
      }
      PutLe(&out, bits, 4);
    }
    return out;
  }
  out = std::to_string(rows) + " " + std::to_string(cols) + "\n";
  char buf[32];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const double v = t.values[static_cast<size_t>(r * cols + c)];
      if (dtype == DType::kFloat32) {
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
      } else {
        std::snprintf(buf, sizeof buf, "%d", static_cast<int32_t>(v));
      }
      if (c) out += ' ';
      out += buf;
    }
    out += '\n';
  }
  return out;
}

Result<HostTensor> DecodeTensor(const std::string& bytes, const std::string& what) {
  HostTensor t;
  if (bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0) {
    if (bytes.size() < kHeaderBytes) return InvalidArgument(what + ": truncated header");
    const uint64_t dtype = GetLe(bytes, 8, 4), rows = GetLe(bytes, 16, 8),
                   cols = GetLe(bytes, 24, 8);
    if (dtype > 1) return InvalidArgument(what + ": unknown dtype " + std::to_string(dtype));
    if (cols != 0 && rows > (bytes.size() - kHeaderBytes) / 4 / cols) {
      return InvalidArgument(what + ": " + std::to_string(rows) + "x" + std::to_string(cols) +
                             " does not fit in " + std::to_string(bytes.size()) + " bytes");
    }
    if (bytes.size() != kHeaderBytes + rows * cols * 4) {
      return InvalidArgument(what + ": size does not match its header");
    }
    t.dims = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
    t.values.reserve(rows * cols);
    for (size_t at = kHeaderBytes; at < bytes.size(); at += 4) {
      const uint32_t bits = static_cast<uint32_t>(GetLe(bytes, at, 4));
      if (dtype == 0) {
        float f;
        std::memcpy(&f, &bits, 4);
        t.values.push_back(f);
      } else {
        t.values.push_back(static_cast<int32_t>(bits));
      }
    }
    return t;
  }
  std::vector<std::string_view> words;
  for (std::string_view line : Split(bytes, '\n')) {
    for (std::string_view w : Split(line, ' ')) {
      w = Trim(w);
      if (!w.empty()) words.push_back(w);
    }
  }
  if (words.size() < 2) return InvalidArgument(what + ": expected 'rows cols' first");
  Result<int64_t> rows = ParseInt64(words[0]), cols = ParseInt64(words[1]);
  if (!rows.ok() || !cols.ok() || *rows < 0 || *cols < 0) {
    return InvalidArgument(what + ": expected 'rows cols' first");
  }
  if (static_cast<uint64_t>(words.size() - 2) !=
      static_cast<uint64_t>(*rows) * static_cast<uint64_t>(*cols)) {
    return InvalidArgument(what + ": " + std::to_string(words.size() - 2) + " values for " +
                           std::to_string(*rows) + "x" + std::to_string(*cols));
  }
  t.dims = {*rows, *cols};
  for (size_t i = 2; i < words.size(); ++i) {
    Result<double> v = ParseDouble(words[i]);
    if (!v.ok()) return InvalidArgument(what + ": '" + std::string(words[i]) + "' is not a number");
    t.values.push_back(*v);
  }
  return t;
}

Result<TestData> MakeTestData(const KernelSpec& spec,
                              const std::vector<std::pair<std::string, int64_t>>& shape,
                              DataFormat wanted) {
  TestData data;
  std::vector<HostTensor> inputs, outputs;
  size_t idx = kFirstTensorIndex;
  for (const TensorSpec& t : spec.inputs) {
    HostTensor h;
    KT_ASSIGN_OR_RETURN(h.dims, TensorDims(t, shape));
    int64_t n = 1;
    for (int64_t d : h.dims) n *= d;
    h.values = GenerateValues(t, n);
    const DataFormat format = ChooseFormat(wanted, n);
    data.files.emplace_back(TensorFileName(h.dims, idx++, format),
                            EncodeTensor(h, t.dtype, format));
    inputs.push_back(std::move(h));
  }
  if (spec.outputs.empty()) return data;
  for (const TensorSpec& t : spec.outputs) {
    HostTensor h;
    KT_ASSIGN_OR_RETURN(h.dims, TensorDims(t, shape));
    int64_t n = 1;
    for (int64_t d : h.dims) n *= d;
    h.values.assign(static_cast<size_t>(n), 0.0);
    outputs.push_back(std::move(h));
  }
  const Reference* ref = FindReference(spec.reference);
  Status computed = ref->compute(inputs, &outputs);
  if (!computed.ok()) return InvalidArgument(spec.path + ": reference " + computed.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const DataFormat format = ChooseFormat(wanted, static_cast<int64_t>(outputs[i].values.size()));
    data.files.emplace_back(TensorFileName(outputs[i].dims, idx++, format),
                            EncodeTensor(outputs[i], spec.outputs[i].dtype, format));
  }
  return data;
}

std::string DescribeTestData(const KernelSpec& spec, const TestData& data) {
  std::vector<std::string> tensors;
  bool txt = false, bin = false;
  for (size_t i = 0; i < data.files.size(); ++i) {
    const auto parsed = ParseTestDataFileName(data.files[i].first);
    if (!parsed) continue;
    (parsed->binary ? bin : txt) = true;
    const bool input = i < spec.inputs.size();
    const TensorSpec* t = input ? &spec.inputs[i]
                          : i - spec.inputs.size() < spec.outputs.size()
                              ? &spec.outputs[i - spec.inputs.size()]
                              : nullptr;
    if (!t) continue;
    tensors.push_back((input ? "" : "golden ") + t->name + " _" + std::to_string(parsed->index));
  }
  return Join(tensors, ", ") + (txt && bin ? " (TXT and BIN)" : bin ? " (BIN)" : " (TXT)");
}

}  // namespace ktune::host
