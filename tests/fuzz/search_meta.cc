// Fuzzes ReadSearchMeta (host/search/search_files.h), the reader of a search's metadata (the
// .json beside a search's evaluations: its command line, time spent, the batch it was measuring
// and its warm start), which `khost tune --strategy ... --resume` reads back from a file a user
// may have edited or cut short.
//
// Input: the file's text.
//
// Asserts, beyond no crash, no sanitizer report and no exception escaping:
// - metadata read, written back (WriteSearchMeta) and read again is the same.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/fs.h"
#include "host/search/search_files.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

bool SameMeta(const ktune::host::SearchMeta& a, const ktune::host::SearchMeta& b) {
  const bool same_pending = a.pending.has_value() == b.pending.has_value() &&
                            (!a.pending || (a.pending->run_id == b.pending->run_id &&
                                            a.pending->configs == b.pending->configs));
  return a.argv == b.argv && a.elapsed_s == b.elapsed_s && same_pending &&
         a.warm_start == b.warm_start && a.warm_about == b.warm_about && a.warm_here == b.warm_here;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  // ReadSearchMeta reads <search without .csv>.json.
  const std::string search = FuzzScratchDir() + "/search.csv";
  const std::string written = FuzzScratchDir() + "/written.csv";
  FUZZ_CHECK(WriteFileAtomic(FuzzScratchDir() + "/search.json",
                             std::string_view(reinterpret_cast<const char*>(data), size))
                 .ok());
  auto meta = ReadSearchMeta(search);
  if (!meta.ok()) return 0;
  FUZZ_CHECK_OK(WriteSearchMeta(written, *meta));
  auto again = ReadSearchMeta(written);
  FUZZ_CHECK_OK(again);
  FUZZ_CHECK(SameMeta(*again, *meta));
  return 0;
}
