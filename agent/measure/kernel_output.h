// What a kernel prints about itself: the seed's time lines and its output check, read from the
// output as it streams, so nothing is missed whatever part of the output is kept.
//
// Time lines have the form "Running <label> Kernel [Average ]Time: <number> [s|ms|us|ns]", e.g.
//   Running Triton Kernel Time: 0.012 s
//   Running C Kernel Time: 0.5 s
//   Running Triton Kernel Average Time: 5e-05 s
// The first such line counts (as the seed's re.search did); a missing unit means seconds; lines
// longer than kMaxTimeLineBytes are not time lines. A run's check failed when its output holds
// "NOT OK" anywhere: common/kernel_output.h's rule (OutputReportsFailure), applied here to output
// that arrives in pieces.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ktune::agent {

constexpr size_t kMaxTimeLineBytes = 4096;

class OutputScanner {
 public:
  // The next piece of output, split anywhere.
  void Feed(std::string_view chunk);
  // The output ended: a last line without '\n' is read too.
  void Finish();

  std::optional<double> kernel_time_s() const { return kernel_time_s_; }
  bool reports_failure() const { return failure_; }

 private:
  void EndLine();

  std::string line_;
  bool line_too_long_ = false;
  std::string carry_;  // the last bytes of the previous chunk, for "NOT OK" across chunks
  std::optional<double> kernel_time_s_;
  bool failure_ = false;
};

}  // namespace ktune::agent
