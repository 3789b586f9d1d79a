// Fuzzes ParseShapesFile, the reader of khost tune/run --shapes FILE (a file a user writes), with
// what khost does next: ResolveShapes against a matmul-like spec.
//
// Input: the file's text.
//
// Asserts, beyond no crash and no sanitizer report:
// - every set read is non-empty, its names unique, its values positive;
// - the sets written back one per line and read again are the same;
// - resolved shapes each hold every name of the spec's shape, positive, no two alike.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "host/tune/shapes.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  auto sets = ParseShapesFile(std::string_view(reinterpret_cast<const char*>(data), size), "f");
  if (!sets.ok()) return 0;
  std::string text;
  for (const ShapeSet& s : *sets) {
    FUZZ_CHECK(!s.values.empty());
    std::set<std::string> names;
    for (const auto& [name, value] : s.values) {
      FUZZ_CHECK(names.insert(name).second && value > 0);
      text += name + "=" + std::to_string(value) + " ";
    }
    text += "\n";
  }
  auto again = ParseShapesFile(text, "f");
  FUZZ_CHECK(again.ok() && again->size() == sets->size());
  for (size_t i = 0; i < sets->size(); ++i) FUZZ_CHECK((*again)[i].values == (*sets)[i].values);

  static const KernelSpec spec = [] {
    auto s = ParseKernelSpec(
        "kernel: k\nmain: main.c\nparam: B = 1 2\nshape: M=2 N=3 K=4 RUNS=1\n"
        "args: {M}x{N}x{K}x{RUNS}\ninput: A float32 [M, K] uniform(-1, 1)\n"
        "output: C float32 [M, N]\n",
        "/k/k.kspec");
    return s.ok() ? *s : KernelSpec{};
  }();
  auto shapes = ResolveShapes(spec, {}, *sets);
  if (!shapes.ok()) return 0;
  std::set<Shape> distinct;
  for (const Shape& shape : *shapes) {
    FUZZ_CHECK(shape.size() == spec.shape.size() && distinct.insert(shape).second);
    for (size_t i = 0; i < shape.size(); ++i) {
      FUZZ_CHECK(shape[i].first == spec.shape[i].first && shape[i].second > 0);
    }
  }
  return 0;
}
