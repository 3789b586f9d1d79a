// Fuzzes the results file reader, ParseResultsCsv (and through it CsvSplit, ParseParams,
// Outcome::Parse, ParseValueStatus and the number parsers): agentd reads its journal back with it
// for FetchRun and resume, khost its local copy for every report; both may have been cut or
// edited. And WholeRepetitionsBytes, which decides how much of a torn journal agentd keeps.
//
// Input: the text of a results file.
//
// Asserts, beyond no crash and no sanitizer report:
// - at most one torn line, and only when the text does not end in '\n';
// - the rows written out again (the header, then ToCsvLines of each row) parse back without a
//   torn line, and those rows written and read once more are the same rows: after one writing,
//   reading and writing keep every row;
// - when the text holds no '\r' (which the writer turns into a space), the rows parse back
//   exactly as they were first read, values to the bit (a NaN to a NaN of the same sign);
// - WholeRepetitionsBytes keeps whole lines only (all of the text when nothing is torn, else a
//   prefix ending in '\n', or none), and the rows of that prefix are the text's rows, less at
//   most its last repetition.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/results.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune {
namespace {

std::string Write(const ResultsFile& file) {
  std::string text = std::string(kResultsHeader) + "\n";
  for (const RepetitionRow& row : file.rows) text += ToCsvLines(row);
  return text;
}

bool SameValue(const MeasuredValue& a, const MeasuredValue& b) {
  const bool same_number =
      std::isnan(a.value) ? std::isnan(b.value) && std::signbit(a.value) == std::signbit(b.value)
                          : std::memcmp(&a.value, &b.value, sizeof a.value) == 0;
  return a.name == b.name && same_number && a.unit == b.unit && a.enabled_ns == b.enabled_ns &&
         a.running_ns == b.running_ns && a.status == b.status;
}

bool SameRow(const RepetitionRow& a, const RepetitionRow& b) {
  if (a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!SameValue(a.values[i], b.values[i])) return false;
  }
  return a.run_id == b.run_id && a.timestamp_ns == b.timestamp_ns &&
         a.variant_index == b.variant_index && a.variant == b.variant && a.elf == b.elf &&
         a.params == b.params && a.pass == b.pass && a.sampling == b.sampling &&
         a.repetition == b.repetition && a.valid == b.valid && a.outcome.kind == b.outcome.kind &&
         a.outcome.code == b.outcome.code;
}

bool SameRows(const std::vector<RepetitionRow>& a, const std::vector<RepetitionRow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameRow(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace
}  // namespace ktune

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t whole = WholeRepetitionsBytes(text);
  FUZZ_CHECK(whole <= text.size());
  FUZZ_CHECK(whole == 0 || text[whole - 1] == '\n');
  if (!text.empty() && text.back() == '\n') FUZZ_CHECK(whole == text.size());
  auto file = ParseResultsCsv(text);
  if (!file.ok()) return 0;
  if (auto kept = ParseResultsCsv(text.substr(0, whole)); kept.ok()) {
    FUZZ_CHECK(kept->torn_lines == 0);
    FUZZ_CHECK(kept->rows.size() + 1 >= file->rows.size() &&
               kept->rows.size() <= file->rows.size());
  }
  FUZZ_CHECK(file->torn_lines == (!text.empty() && text.back() != '\n' ? 1u : 0u));
  for (const RepetitionRow& row : file->rows) FUZZ_CHECK(!row.values.empty());

  auto again = ParseResultsCsv(Write(*file));
  FUZZ_CHECK(again.ok() && again->torn_lines == 0);
  auto third = ParseResultsCsv(Write(*again));
  FUZZ_CHECK(third.ok() && SameRows(third->rows, again->rows));
  if (text.find('\r') == std::string_view::npos) FUZZ_CHECK(SameRows(again->rows, file->rows));
  return 0;
}
