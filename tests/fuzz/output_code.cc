// Fuzzes ExtractTritonKernels (host/corpus/corpus.h) and the Python reader under it
// (host/corpus/pysource.h), which read Inductor's output_code.py files for `khost corpus extract`:
// any file a user points it at, and code within code (the kernel modules in async_compile.triton
// strings).
//
// Input: the text of a .py file.
//
// Asserts, beyond no crash and no sanitizer report:
// - a failure is an InvalidArgument that names a line ("line N: ...");
// - every kernel spans lines of the file (1 <= first <= last <= the file's lines), its length is
//   that span, its source is whole lines, its kind is one of the five TritonKernelKind gives.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/strings.h"
#include "host/corpus/corpus.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto kernels = ExtractTritonKernels(text);
  if (!kernels.ok()) {
    FUZZ_CHECK(kernels.status().code() == ErrorCode::kInvalidArgument);
    const std::string& m = kernels.status().message();
    FUZZ_CHECK(m.starts_with("line "));
    return 0;
  }
  const auto lines = Split(text, '\n');
  for (const CorpusKernel& k : *kernels) {
    FUZZ_CHECK(1 <= k.first_line && k.first_line <= k.last_line);
    FUZZ_CHECK(static_cast<size_t>(k.last_line) <= lines.size());
    FUZZ_CHECK(k.length_lines == static_cast<size_t>(k.last_line - k.first_line + 1));
    FUZZ_CHECK(k.kind == "pointwise" || k.kind == "reduction" || k.kind == "persistent_reduction" ||
               k.kind == "template" || k.kind == "other");
    FUZZ_CHECK(!k.source.empty() && k.source.back() == '\n');
  }
  return 0;
}
