// Fuzzes ParseEvaluations, the reader of a search's evaluations (khost tune --strategy's journal,
// which --resume reads back, and the recorded landscapes the search benchmark replays; either may
// be edited or cut short), with what both do next: LandscapeOf.
//
// Input: the file's text.
//
// Asserts, beyond no crash and no sanitizer report:
// - a file read, written back with FormatEvaluationsHeader/FormatEvaluation and read again, is
//   the same (comments, names, every line);
// - a landscape has one time per configuration, the lines' own.
#include <cstddef>
#include <cstdint>
#include <string>

#include "host/results/evaluations.h"
#include "host/strategy/replay.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  auto parsed = ParseEvaluations(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!parsed.ok()) return 0;
  std::string text = FormatEvaluationsHeader(parsed->comments, parsed->names);
  for (const Evaluation& e : parsed->rows) text += FormatEvaluation(e);
  auto again = ParseEvaluations(text);
  FUZZ_CHECK(again.ok() && again->torn_lines == 0);
  FUZZ_CHECK(again->comments == parsed->comments && again->names == parsed->names);
  FUZZ_CHECK(again->rows.size() == parsed->rows.size());
  for (size_t i = 0; i < parsed->rows.size(); ++i) {
    const Evaluation &a = parsed->rows[i], &b = again->rows[i];
    FUZZ_CHECK(a.config == b.config && a.time_ns == b.time_ns && a.status == b.status &&
               a.run == b.run);
  }
  std::vector<Measured> measured;
  for (const Evaluation& e : parsed->rows) measured.push_back({e.config, e.time_ns});
  auto landscape = LandscapeOf(parsed->names, measured);
  if (!landscape.ok()) return 0;
  FUZZ_CHECK(landscape->space.size() == parsed->rows.size());
  for (size_t i = 0; i < parsed->rows.size(); ++i) {
    FUZZ_CHECK(landscape->space.config(i) == parsed->rows[i].config);
    FUZZ_CHECK(landscape->time[i] == parsed->rows[i].time_ns);
  }
  return 0;
}
