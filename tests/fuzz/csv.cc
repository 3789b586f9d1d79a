// Fuzzes the CSV line reader and writer of common/csv.h: CsvSplit reads every line of a results
// file, whatever a writer or an editor left there; CsvField/CsvJoin quote whatever text a row
// carries (names and paths from a host, program output).
//
// Input: one line for CsvSplit; the same bytes, cut at each '\0', are the fields for CsvJoin.
//
// Asserts, beyond no crash and no sanitizer report:
// - fields CsvSplit read, joined again, split into the same fields (less newlines, which the
//   writer turns into spaces);
// - any fields, joined, split back into the same fields (less newlines) and never into a
//   record of more than one line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/csv.h"
#include "common/strings.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune {
namespace {

// A field as the writer keeps it: '\n' and '\r' become spaces.
std::string AsWritten(std::string_view field) {
  std::string out(field);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

void CheckJoinSplits(const std::vector<std::string>& fields) {
  const std::string line = CsvJoin(fields);
  FUZZ_CHECK(line.find('\n') == std::string::npos && line.find('\r') == std::string::npos);
  auto back = CsvSplit(line);
  FUZZ_CHECK(back.ok() && back->size() == fields.size());
  for (size_t i = 0; i < fields.size(); ++i) FUZZ_CHECK((*back)[i] == AsWritten(fields[i]));
}

}  // namespace
}  // namespace ktune

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto fields = CsvSplit(text); fields.ok()) {
    FUZZ_CHECK(!fields->empty());
    CheckJoinSplits(*fields);
  }
  std::vector<std::string> cut;
  for (std::string_view f : Split(text, '\0')) cut.emplace_back(f);
  CheckJoinSplits(cut);
  return 0;
}
