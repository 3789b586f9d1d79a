// Fuzzes what khost reads from a LAVA lab (host/lava/): a job's log as the REST API serves it
// (ParseLavaLog, then AgentdListening on each record's message, as ReserveLavaBoards reads the
// board's console) and a job's JSON (ParseLavaJob). Both come from the lab and the board.
//
// Input: the bytes the API answered.
//
// Asserts, beyond no crash and no sanitizer report:
// - the whole lines counted are the input's newlines, and no more records than lines;
// - read in two pieces cut at a line's end (as khost reads a growing log from where it left
//   off), the records are the same as read at once;
// - an address agentd is said to listen on has a port.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "host/lava/lava_api.h"
#include "host/lava/lava_log.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

bool Same(const std::vector<ktune::host::LavaLogLine>& a,
          const std::vector<ktune::host::LavaLogLine>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].level != b[i].level || a[i].message != b[i].message) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune::host;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t lines = 0;
  const std::vector<LavaLogLine> all = ParseLavaLog(text, &lines);
  FUZZ_CHECK(lines == static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
  FUZZ_CHECK(all.size() <= lines);
  for (const LavaLogLine& l : all) {
    if (auto at = AgentdListening(l.message)) FUZZ_CHECK(at->port != 0);
  }
  const size_t cut = text.find('\n', text.size() / 2);
  if (cut != std::string_view::npos) {
    size_t first_lines = 0, rest_lines = 0;
    std::vector<LavaLogLine> pieces = ParseLavaLog(text.substr(0, cut + 1), &first_lines);
    const std::vector<LavaLogLine> rest = ParseLavaLog(text.substr(cut + 1), &rest_lines);
    pieces.insert(pieces.end(), rest.begin(), rest.end());
    FUZZ_CHECK(first_lines + rest_lines == lines);
    FUZZ_CHECK(Same(pieces, all));
  }
  (void)ParseLavaJob(std::string(text), "fuzz");
  return 0;
}
