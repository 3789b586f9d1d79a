#include "common/kernel_output.h"

namespace ktune {

bool OutputReportsFailure(std::string_view output) {
  return output.find(kOutputFailure) != std::string_view::npos;
}

std::string OutputCheckProblem(std::string_view output) {
  if (output.find(kOutputNotOk) != std::string_view::npos) {
    return "printed '" + std::string(kOutputNotOk) + "'";
  }
  if (output.find(kOutputOk) == std::string_view::npos) {
    return "did not print '" + std::string(kOutputOk) + "'";
  }
  return "";
}

}  // namespace ktune
