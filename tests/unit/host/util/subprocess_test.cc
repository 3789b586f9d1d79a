// The pure parts of khost tune: toolchain profiles, Triton input (blk_constants.json, IR
// retargeting), variant planning (names, constants, commands, configs.json) and its options.
#include <doctest/doctest.h>

#include "common/fs.h"
#include "host/results/kernel_dir.h"
#include "host/tune/kspec.h"
#include "host/tune/toolchain.h"
#include "host/tune/triton.h"
#include "host/tune/variant_build.h"
#include "host/util/subprocess.h"

namespace ktune::host {
namespace {

TEST_CASE("command lines quote what a shell would split; LastLines keeps the end") {
  CHECK(CommandLine({"cc", "-O2", "-DX=1", "a b.c", "it's"}) == "cc -O2 -DX=1 'a b.c' 'it'\\''s'");
  CHECK(CommandLine({""}) == "''");
  CHECK(LastLines("a\nb\nc\n", 2) == "b\nc");
  CHECK(LastLines("a\nb\nc", 5) == "a\nb\nc");
  CHECK(LastLines("", 3).empty());
  // LastLine: the last line with any text, trimmed, whatever the line ends.
  CHECK(LastLine("first\n  Segmentation fault \r\n\n \n") == "Segmentation fault");
  CHECK(LastLine("one line") == "one line");
  CHECK(LastLine(" \n\t\r\n").empty());
  CHECK(LastLine("").empty());
}

}  // namespace
}  // namespace ktune::host
