// common/kernel_output.h: the two decisions taken from a kernel's "out OK" / "out NOT OK".
#include <doctest/doctest.h>

#include "common/kernel_output.h"

namespace ktune {
namespace {

TEST_CASE("a measured run failed when NOT OK appears anywhere") {
  CHECK(OutputReportsFailure("out NOT OK\n"));
  CHECK(OutputReportsFailure("warmup\nresult NOT OK (tolerance)\nout OK\n"));
  CHECK_FALSE(OutputReportsFailure("out OK\n"));
  CHECK_FALSE(OutputReportsFailure(""));
  CHECK_FALSE(OutputReportsFailure("NOT ok"));
}

TEST_CASE("khost tune --check passes only out OK without out NOT OK, and says why not") {
  CHECK(OutputCheckProblem("Running C Kernel Time: 1 s\nout OK\n").empty());
  CHECK(OutputCheckProblem("out NOT OK\n") == "printed 'out NOT OK'");
  CHECK(OutputCheckProblem("out OK\nout NOT OK\n") == "printed 'out NOT OK'");
  CHECK(OutputCheckProblem("") == "did not print 'out OK'");
  CHECK(OutputCheckProblem("OK\n") == "did not print 'out OK'");
  // The rules differ: another NOT OK is the agent's failure, not --check's.
  CHECK(OutputCheckProblem("result NOT OK\nout OK\n").empty());
  CHECK(OutputReportsFailure("result NOT OK\nout OK\n"));
}

}  // namespace
}  // namespace ktune
