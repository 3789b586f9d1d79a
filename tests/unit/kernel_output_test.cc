#include <doctest/doctest.h>

#include "agent/kernel_output.h"

namespace ktune {
namespace {

TEST_CASE("every seed time format is read") {
  CHECK(*ParseKernelTimeSeconds("Running Triton Kernel Time: 0.012 s\n") == doctest::Approx(0.012));
  CHECK(*ParseKernelTimeSeconds("x\nRunning C Kernel Time: 1.5 s\nout OK\n") == 1.5);
  CHECK(*ParseKernelTimeSeconds("Running Triton Kernel Average Time: 5e-05 s") == 5e-05);
  CHECK(*ParseKernelTimeSeconds("Running Triton Kernel Time: 1.2E+01 s\r\n") == 12.0);
}

TEST_CASE("units other than seconds are converted; a missing unit means seconds") {
  CHECK(*ParseKernelTimeSeconds("Running C Kernel Time: 250 ms") == doctest::Approx(0.25));
  CHECK(*ParseKernelTimeSeconds("Running C Kernel Time: 3 us") == doctest::Approx(3e-6));
  CHECK(*ParseKernelTimeSeconds("Running C Kernel Time: 7") == 7.0);
}

TEST_CASE("the first time line counts; lines that only look similar do not") {
  CHECK(*ParseKernelTimeSeconds("Running C Kernel Time: 1 s\nRunning C Kernel Time: 2 s\n") == 1);
  CHECK_FALSE(ParseKernelTimeSeconds("Kernel Time: 1 s").has_value());
  CHECK_FALSE(ParseKernelTimeSeconds("Running Triton Kernel Time: fast").has_value());
  CHECK_FALSE(ParseKernelTimeSeconds("Running Triton Kernel Time: 1 s and more").has_value());
  CHECK_FALSE(ParseKernelTimeSeconds("").has_value());
}

TEST_CASE("NOT OK anywhere in the output marks a failed check") {
  CHECK(OutputReportsFailure("out NOT OK\n"));
  CHECK_FALSE(OutputReportsFailure("out OK\n"));
}

}  // namespace
}  // namespace ktune
