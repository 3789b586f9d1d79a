// What a kernel says about its own output check, and the two decisions taken from it. The seed's
// check_tensor (and kernels/common/ktune_kernel.c) prints "out OK" or "out NOT OK". The two
// rules differ on purpose, and this is their one owner:
// - a measured repetition is invalid when its output holds "NOT OK" anywhere, whoever printed it
//   (agentd: OutputReportsFailure, applied as the output streams by agent/measure/kernel_output.h);
// - khost tune --check passes a variant only when it printed "out OK" and not "out NOT OK"
//   (OutputCheckProblem, over the whole output).
#pragma once

#include <string>
#include <string_view>

namespace ktune {

inline constexpr std::string_view kOutputOk = "out OK";
inline constexpr std::string_view kOutputNotOk = "out NOT OK";
// What marks a measured run's output as failed, wherever it appears.
inline constexpr std::string_view kOutputFailure = "NOT OK";

// The agent's rule: true when `output` holds "NOT OK".
bool OutputReportsFailure(std::string_view output);

// khost tune --check's rule over a variant's whole output: "" when it passes, else why not
// ("printed 'out NOT OK'", or "did not print 'out OK'").
std::string OutputCheckProblem(std::string_view output);

}  // namespace ktune
