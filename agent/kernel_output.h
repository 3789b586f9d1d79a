// What a kernel prints about itself: the seed's time lines and its output check.
//
// Time lines have the form "Running <label> Kernel [Average ]Time: <number> [s|ms|us|ns]", e.g.
//   Running Triton Kernel Time: 0.012 s
//   Running C Kernel Time: 0.5 s
//   Running Triton Kernel Average Time: 5e-05 s
// The first such line counts (as the seed's re.search did); a missing unit means seconds.
// A run is valid when it exited 0 and its output holds no "NOT OK" (the seed's check_tensor
// prints "out OK" / "out NOT OK").
#pragma once

#include <optional>
#include <string_view>

namespace ktune {

std::optional<double> ParseKernelTimeSeconds(std::string_view output);
bool OutputReportsFailure(std::string_view output);

}  // namespace ktune
