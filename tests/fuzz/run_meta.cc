// Fuzzes ReadRunMeta, the reader of a run's <run_id>.json beside its results (what the run asked
// for and its metric formulas; the file may be edited, or left by another version), with what
// LoadRun does next: MakeMetric on every formula (host/util/expr.h).
//
// Input: the text of the .json file (ReadRunMeta reads files, so it goes to a scratch file).
//
// Asserts, beyond no crash and no sanitizer report (an exception escaping ReadRunMeta would
// abort):
// - metadata read, written back with WriteRunMeta and read again, is the same.
#include <fcntl.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/fs.h"
#include "host/events/event_groups.h"
#include "host/results/results_dir.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

bool SameMeta(const RunMeta& a, const RunMeta& b) {
  if (a.metrics.size() != b.metrics.size()) return false;
  for (size_t i = 0; i < a.metrics.size(); ++i) {
    const RunMeta::Metric &x = a.metrics[i], &y = b.metrics[i];
    if (x.name != y.name || x.formula != y.formula || x.group != y.group) return false;
  }
  return a.run_id == b.run_id && a.kernel == b.kernel && a.agent == b.agent && a.cpu == b.cpu &&
         a.core == b.core && a.requested == b.requested && a.events == b.events &&
         a.passes == b.passes && a.plan == b.plan && a.complete == b.complete;
}

}  // namespace
}  // namespace ktune::host

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string path = FuzzScratchDir() + "/run.json";
  FUZZ_CHECK(WriteAll(OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC).value().get(),
                      std::string_view(reinterpret_cast<const char*>(data), size), path)
                 .ok());
  auto meta = ReadRunMeta(path);
  if (!meta.ok()) return 0;
  for (const RunMeta::Metric& m : meta->metrics) (void)MakeMetric(m.name, m.formula, m.group);
  const std::string again_path = FuzzScratchDir() + "/again.json";
  FUZZ_CHECK_OK(WriteRunMeta(again_path, *meta));
  auto again = ReadRunMeta(again_path);
  FUZZ_CHECK(again.ok() && SameMeta(*again, *meta));
  return 0;
}
