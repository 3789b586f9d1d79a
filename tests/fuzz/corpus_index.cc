// Fuzzes ParseCorpusIndex (host/corpus/corpus.h), the reader of a corpus's index.json, which
// `khost corpus sample` reads back from a corpus directory someone may have edited, cut short or
// handed over.
//
// Input: the text of an index.json.
//
// Asserts, beyond no crash and no sanitizer report:
// - every kernel's file is inside the corpus: not empty, not absolute, no "..";
// - an index read, written back (CorpusIndexJson) and read again is the same index;
// - its CSV (CorpusIndexCsv) is a header and one line per kernel.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "host/corpus/corpus.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

bool SameEntry(const ktune::host::CorpusEntry& a, const ktune::host::CorpusEntry& b) {
  return a.name == b.name && a.model == b.model && a.source_file == b.source_file &&
         a.first_line == b.first_line && a.last_line == b.last_line &&
         a.length_lines == b.length_lines && a.kind == b.kind && a.hash == b.hash &&
         a.file == b.file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune::host;
  auto index = ParseCorpusIndex(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!index.ok()) return 0;
  for (const CorpusEntry& e : index->kernels) {
    FUZZ_CHECK(!e.file.empty() && e.file.front() != '/' && e.file.find("..") == std::string::npos);
  }
  auto again = ParseCorpusIndex(CorpusIndexJson(*index));
  FUZZ_CHECK_OK(again);
  FUZZ_CHECK(again->sampled_with == index->sampled_with &&
             again->kernels.size() == index->kernels.size());
  for (size_t i = 0; i < index->kernels.size(); ++i) {
    FUZZ_CHECK(SameEntry(again->kernels[i], index->kernels[i]));
  }
  const std::string csv = CorpusIndexCsv(*index);
  FUZZ_CHECK(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) ==
             index->kernels.size() + 1);
  return 0;
}
