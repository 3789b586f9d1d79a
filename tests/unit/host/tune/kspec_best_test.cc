// Kernel specs and what khost tune derives from them without building: the spec parser and its
// errors (file:line), shape overrides and argv, the configuration space, test data (values,
// names, both formats) and the host references that give the golden outputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "common/fs.h"
#include "host/results/test_data_files.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/kspec_best.h"
#include "host/tune/references.h"
#include "host/tune/tensors.h"

namespace ktune::host {
namespace {

TEST_CASE("WithBestLine replaces an earlier best: line and its comment, or appends") {
  const std::string body = "kernel: k\nparam: P = 1 2\n";
  CHECK(WithBestLine(body, "# khost tune --apply-best: run r1", "best: P=2") ==
        body + "\n# khost tune --apply-best: run r1\nbest: P=2\n");
  const std::string applied = WithBestLine(body, "# khost tune --apply-best: run r1", "best: P=2");
  CHECK(WithBestLine(applied, "# khost tune --apply-best: run r2", "best: P=1") ==
        body + "\n# khost tune --apply-best: run r2\nbest: P=1\n");
  // The parser's reading of the key ("best :"), a trailing comment kept, CRLF kept.
  CHECK(WithBestLine("kernel: k\nbest : P=1  # board A\n", "# khost tune --apply-best: r4",
                     "best: P=2") ==
        "kernel: k\n# khost tune --apply-best: r4\nbest: P=2  # board A\n");
  CHECK(WithBestLine("kernel: k\r\nparam: P = 1 2\r\n", "# khost tune --apply-best: r5",
                     "best: P=1") ==
        "kernel: k\r\nparam: P = 1 2\r\n\r\n# khost tune --apply-best: r5\r\nbest: P=1\r\n");
  // A commented-out best: is not a best: line.
  CHECK(WithoutBestLine("kernel: k\n# best: P=1\n") == "kernel: k\n# best: P=1\n");
  CHECK(WithoutBestLine(applied) == body + "\n");
  // A hand-written best: line is replaced in place; other comments stay.
  CHECK(WithBestLine("kernel: k\n# mine\nbest: P=1\nparam: P = 1 2\n",
                     "# khost tune --apply-best: r3", "best: P=2") ==
        "kernel: k\n# mine\n# khost tune --apply-best: r3\nbest: P=2\nparam: P = 1 2\n");
}

}  // namespace
}  // namespace ktune::host
