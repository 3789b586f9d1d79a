// Fuzzes ParseKernelSpec, which reads a kernel spec (kernels/<name>/<name>.kspec, anyone's text)
// for khost tune, with what tune does next on the parsed spec that needs no compiler: its
// constraints (host/util/expr.h) evaluated on a configuration, its work formulas (flops, bytes:
// WorkOf), the tensors' dimensions, the ELF's argv, the configuration space of a small grid; and
// --apply-best's rewriting of the spec text (WithBestLine, WithoutBestLine).
//
// Input: the text of a .kspec file.
//
// Asserts, beyond no crash and no sanitizer report:
// - a parsed spec has a kernel name, sources and parameters, each with unique candidates, and a
//   "best" that is empty or gives every parameter;
// - its work at a configuration is finite and not negative, or an error that names the spec;
// - the enumerated space of a grid of at most 4096 configurations keeps at most the grid, each
//   configuration made of candidate values;
// - the spec with a best line written in (as --apply-best does) parses to the same spec with that
//   best, and the spec with it taken out parses to the same spec without one.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/kspec_best.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

constexpr const char* kPath = "/fuzz/kernel.kspec";
constexpr size_t kMaxEnumeratedGrid = 4096;

// Everything but the best line, as parsed.
bool SameSpecButBest(const KernelSpec& a, const KernelSpec& b) {
  if (a.params.size() != b.params.size() || a.constraints.size() != b.constraints.size() ||
      a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size()) {
    return false;
  }
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (a.params[i].name != b.params[i].name || a.params[i].values != b.params[i].values) {
      return false;
    }
  }
  for (size_t i = 0; i < a.constraints.size(); ++i) {
    if (a.constraints[i].text != b.constraints[i].text) return false;
  }
  for (const auto* lists : {&a.inputs, &a.outputs}) {
    const auto& other = lists == &a.inputs ? b.inputs : b.outputs;
    for (size_t i = 0; i < lists->size(); ++i) {
      const TensorSpec &x = (*lists)[i], &y = other[i];
      if (x.name != y.name || x.dtype != y.dtype || x.dims != y.dims || x.seed != y.seed ||
          x.dist.kind != y.dist.kind || x.atol != y.atol || x.rtol != y.rtol) {
        return false;
      }
    }
  }
  return a.name == b.name && a.main_sources == b.main_sources &&
         a.kernel_sources == b.kernel_sources && a.include_dirs == b.include_dirs &&
         a.cflags == b.cflags && a.constants == b.constants && a.shape == b.shape &&
         a.args == b.args && a.reference == b.reference && a.data == b.data;
}

void CheckParsed(const KernelSpec& spec) {
  FUZZ_CHECK(!spec.name.empty() && !spec.main_sources.empty() && !spec.params.empty());
  size_t grid = 1;
  for (const SpecParam& p : spec.params) {
    FUZZ_CHECK(!p.values.empty());
    std::vector<int64_t> sorted = p.values;
    std::sort(sorted.begin(), sorted.end());
    FUZZ_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    grid = std::min(grid * p.values.size(), kMaxEnumeratedGrid + 1);
  }
  FUZZ_CHECK(spec.best.empty() || spec.best.size() == spec.params.size());

  Config first;
  for (const SpecParam& p : spec.params) first.push_back(p.values.front());
  for (const SpecFormula& c : spec.constraints) {
    (void)c.expr.Evaluate(
        [&](const std::string& name) { return LookupName(spec, first, spec.shape, name); });
  }
  if (auto work = WorkOf(spec, first, spec.shape); work.ok()) {
    for (const std::optional<double>& w : {work->flops, work->bytes}) {
      FUZZ_CHECK(!w || (std::isfinite(*w) && *w >= 0));
    }
  } else {
    FUZZ_CHECK(work.status().message().starts_with(std::string(kPath) + ":"));
  }
  for (const auto* list : {&spec.inputs, &spec.outputs}) {
    for (const TensorSpec& t : *list) (void)TensorDims(t, spec.shape);
  }
  FUZZ_CHECK(ExpandArgs(spec, spec.shape).ok());  // the parser checked the args already
  if (grid <= kMaxEnumeratedGrid) {
    auto space = EnumerateSpace(spec, {});
    if (space.ok()) {
      FUZZ_CHECK(space->grid_size == grid && space->configs.size() <= grid);
      for (const Config& config : space->configs) {
        for (size_t i = 0; i < config.size(); ++i) {
          const auto& values = spec.params[i].values;
          FUZZ_CHECK(std::find(values.begin(), values.end(), config[i]) != values.end());
        }
      }
    }
  }
}

}  // namespace
}  // namespace ktune::host

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = ParseKernelSpec(text, kPath);
  if (!spec.ok()) return 0;
  CheckParsed(*spec);

  // --apply-best: the last candidate of every parameter.
  std::string best_line = "best:";
  std::vector<std::pair<std::string, int64_t>> best;
  for (const SpecParam& p : spec->params) {
    best_line += " " + p.name + "=" + std::to_string(p.values.back());
    best.emplace_back(p.name, p.values.back());
  }
  auto with =
      ParseKernelSpec(WithBestLine(text, "# khost tune --apply-best: fuzz", best_line), kPath);
  FUZZ_CHECK(with.ok());
  FUZZ_CHECK(with->best == best && SameSpecButBest(*with, *spec));
  auto without = ParseKernelSpec(WithoutBestLine(text), kPath);
  FUZZ_CHECK(without.ok());
  FUZZ_CHECK(without->best.empty() && SameSpecButBest(*without, *spec));
  return 0;
}
