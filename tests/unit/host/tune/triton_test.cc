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
#include "tests/unit/host/tune/spec_fixture.h"

namespace ktune::host {
namespace {

using namespace fixture;

const char kHostIr[] =
    "; ModuleID = 'kernel.c'\n"
    "target datalayout = \"e-m:e-p270:32:32-i64:64-n8:16:32:64-S128\"\n"
    "target triple = \"x86_64-pc-linux-gnu\"\n"
    "\n"
    "define void @k() #0 {\n"
    "  ret void\n"
    "}\n"
    "\n"
    "attributes #0 = { nounwind \"target-cpu\"=\"x86-64\" \"target-features\"=\"+sse2,+x87\" "
    "\"tune-cpu\"=\"generic\" uwtable }\n";

TEST_CASE("IR for the host is retargeted; IR for the target is kept; others are refused") {
  const IrTarget rv{"riscv64-unknown-linux-gnu", "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128"};
  auto out = RetargetIr(kHostIr, rv, "x86_64", "k.llir");
  REQUIRE(out.ok());
  const IrTarget now = ReadIrTarget(*out);
  CHECK(now.triple == rv.triple);
  CHECK(now.datalayout == rv.datalayout);
  CHECK(Contains(*out, "attributes #0 = { nounwind uwtable }"));
  CHECK(Contains(*out, "define void @k() #0 {\n  ret void\n}\n"));
  CHECK(out->back() == '\n');

  auto same = RetargetIr(*out, rv, "x86_64", "k.llir");
  REQUIRE(same.ok());
  CHECK(*same == *out);
  auto host_native = RetargetIr(kHostIr, {"x86_64-unknown-linux-gnu", "e"}, "x86_64", "k.llir");
  REQUIRE(host_native.ok());
  CHECK(*host_native == kHostIr);  // same architecture: unchanged, attributes too

  auto third = RetargetIr(kHostIr, rv, "aarch64", "k.llir");
  REQUIRE(!third.ok());
  CHECK(third.status().message() ==
        "k.llir: compiled for x86_64-pc-linux-gnu, which is neither this host (aarch64) nor the "
        "toolchain's target (riscv64-unknown-linux-gnu)");
  CHECK(!RetargetIr("define void @k() { ret void }\n", rv, "x86_64", "k.llir").ok());
}

}  // namespace
}  // namespace ktune::host
