// Fuzzes OutputScanner, which reads a workload's output (anything a kernel prints) as it streams
// in, for its time line and "NOT OK".
//
// Input: one byte giving the size of the pieces (1-256), then the output.
//
// Asserts, beyond no crash and no sanitizer report:
// - the output fed in pieces gives the same kernel time and verdict as fed whole;
// - the run failed exactly when the output holds "NOT OK" (common/kernel_output.h's rule, for
//   the whole output).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/measure/kernel_output.h"
#include "common/kernel_output.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ktune::agent::OutputScanner;
  if (size < 1) return 0;
  const size_t piece_bytes = size_t{data[0]} + 1;
  const std::string_view output(reinterpret_cast<const char*>(data) + 1, size - 1);
  OutputScanner whole;
  whole.Feed(output);
  whole.Finish();
  OutputScanner pieces;
  for (size_t at = 0; at < output.size(); at += piece_bytes) {
    pieces.Feed(output.substr(at, piece_bytes));
  }
  pieces.Finish();
  FUZZ_CHECK(whole.reports_failure() == ktune::OutputReportsFailure(output));
  FUZZ_CHECK(pieces.reports_failure() == whole.reports_failure());
  FUZZ_CHECK(whole.kernel_time_s().has_value() == pieces.kernel_time_s().has_value());
  if (whole.kernel_time_s()) {
    const double a = *whole.kernel_time_s(), b = *pieces.kernel_time_s();
    FUZZ_CHECK(a == b || (std::isnan(a) && std::isnan(b)));
  }
  return 0;
}
