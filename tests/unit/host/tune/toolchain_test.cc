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

TEST_CASE("toolchain profiles: keys, defaults for the IR compiler, and errors with lines") {
  const Toolchain t = Rvv();
  CHECK(t.name == "rvv");
  CHECK(t.target_flags ==
        std::vector<std::string>{"--target=riscv64-linux-gnu", "-march=rv64gcv_zvl256b"});
  CHECK(t.cflags == std::vector<std::string>{"-O2", "-g"});
  CHECK(t.ll_cc == t.cc);               // default: the C compiler
  CHECK(t.ll_flags == t.target_flags);  // and its target
  CHECK(t.emulator == std::vector<std::string>{"qemu-riscv64", "-cpu", "rv64,v=true"});
  CHECK(t.packages.at("qemu-riscv64") == "qemu-user");

  auto native = ParseToolchain(
      "cc = gcc\ncxx = g++\nobjdump = llvm-objdump-19\nll_cc = clang-19\n"
      "ll_flags =\n",
      "native.profile");
  REQUIRE(native.ok());
  CHECK(native->ll_flags.empty());  // set, to nothing
  CHECK(native->emulator.empty());

  auto error = [](const std::string& text) {
    auto r = ParseToolchain(text, "x.profile");
    REQUIRE(!r.ok());
    return r.status().message();
  };
  CHECK(error("cc = gcc\nbogus = 1\n") == "x.profile:2: unknown key 'bogus'");
  CHECK(error("cc gcc\n") == "x.profile:1: expected 'key = value'");
  CHECK(error("cc = gcc\ncxx = g++\nobjdump = o\npackages = gcc\n") ==
        "x.profile:4: packages: expected TOOL:PACKAGE, got 'gcc'");
  CHECK(error("cxx = g++\nobjdump = o\n") == "x.profile: no 'cc ='");
  CHECK(error("cc = gcc\ncxx = g++\nobjdump = o\nname_prefix = ../../evil_\n") ==
        "x.profile: name_prefix and name_suffix take letters, digits, _ . - only");
  CHECK(error("cc = gcc\ncxx = g++\nobjdump = o\nemulator = qemu-x\n") ==
        "x.profile: a profile with an emulator needs 'processor ='");
}

TEST_CASE("the shipped toolchain profiles parse") {
  const std::string dir = KTUNE_SOURCE_DIR "/toolchains";
  const std::vector<std::string> names = ToolchainNames(dir);
  CHECK(names ==
        std::vector<std::string>{"aarch64-gcc12", "native", "riscv64-gcc12", "rvv-clang19"});
  for (const std::string& n : names) {
    CAPTURE(n);
    auto t = LoadToolchain(n, dir);
    REQUIRE_MESSAGE(t.ok(), t.status().message());
    // Every tool the profile runs names the Debian package that provides it.
    for (const auto* tool : {&t->cc, &t->cxx, &t->ll_cc, &t->objdump}) {
      CHECK(t->packages.count((*tool)[0]) == 1);
    }
    if (!t->emulator.empty()) CHECK(t->packages.count(t->emulator[0]) == 1);
  }
  auto missing = LoadToolchain("riscv128", dir);
  REQUIRE(!missing.ok());
  CHECK(Contains(missing.status().message(), "(known: aarch64-gcc12, native,"));
}

TEST_CASE("a missing tool names its Debian package; the emulator only when asked") {
  Toolchain t = Rvv();
  t.emulator = {"ktune-missing-qemu"};
  t.packages["ktune-missing-qemu"] = "qemu-user";
  t.cc = t.cxx = t.ll_cc = t.objdump = {"sh"};  // present everywhere
  CHECK(CheckTools(t, /*with_emulator=*/false).ok());
  const Status s = CheckTools(t, /*with_emulator=*/true);
  CHECK(s.message() ==
        "toolchain rvv needs ktune-missing-qemu, which is not in PATH: install the Debian package "
        "qemu-user (scripts/setup.sh installs it)");
  t.needs = {"ktune-missing-ld"};
  CHECK(Contains(CheckTools(t, false).message(), "its profile names no package for it"));
}

TEST_CASE("a launcher runs the compiles but is no part of the profile's key") {
  const std::string base = "cc = gcc\ncxx = g++\nobjdump = llvm-objdump-19\n";
  auto plain = ParseToolchain(base, "native.profile");
  auto farm = ParseToolchain(base + "launcher = distcc\n", "native.profile");
  REQUIRE(plain.ok());
  REQUIRE(farm.ok());
  CHECK(farm->launcher == std::vector<std::string>{"distcc"});
  CHECK(plain->launcher.empty());
  CHECK(farm->text == plain->text);  // text goes into every variant's cache key
  auto env = ParseToolchain(base + "launcher = env DISTCC_HOSTS=h1 distcc\n", "x.profile");
  CHECK(env->launcher == std::vector<std::string>{"env", "DISTCC_HOSTS=h1", "distcc"});

  // Installed or not, named with its package.
  Toolchain t = *farm;
  t.cc = t.cxx = t.ll_cc = t.objdump = {"sh"};
  t.launcher = {"sh"};
  CHECK(CheckTools(t, false).ok());
  t.launcher = {"ktune-missing-icecc"};
  CHECK(CheckTools(t, false).message() ==
        "toolchain native needs ktune-missing-icecc, which is not in PATH: its profile names no "
        "package for it");
  if (FindInPath("icecc").empty()) {
    t.launcher = {"icecc"};
    CHECK(Contains(CheckTools(t, false).message(), "install the Debian package icecc"));
  }

  // -j given wins; without a distributing launcher, one build per local core.
  BuildSlots slots = BuildParallelism(t, 7);
  CHECK(slots.count == 7);
  CHECK(slots.source == "-j 7");
  t.launcher.clear();
  slots = BuildParallelism(t, 0);
  CHECK(slots.count >= 1);
  CHECK(slots.source == "one per core");
}

TEST_CASE("a compile through the launcher: distcc gets clang's target and compile directory") {
  using V = std::vector<std::string>;
  const V gcc = {"gcc", "-O2", "-g", "-c", "a.c", "-o", "a.o"};
  CHECK(LaunchedCompile({}, gcc, "/w") == gcc);
  CHECK(LaunchedCompile({"distcc"}, gcc, "/w") ==
        V{"distcc", "gcc", "-O2", "-g", "-c", "a.c", "-o", "a.o"});
  const V clang = {"clang-19", "--target=riscv64-linux-gnu", "-march=rv64gcv", "-c", "a.c"};
  CHECK(LaunchedCompile({"/usr/bin/distcc"}, clang, "/w") ==
        V{"/usr/bin/distcc", "clang-19", "-target", "riscv64-linux-gnu", "-march=rv64gcv", "-c",
          "a.c", "-fdebug-compilation-dir=/w"});
  CHECK(LaunchedCompile({"env", "DISTCC_HOSTS=h", "distcc"}, clang, "/w").back() ==
        "-fdebug-compilation-dir=/w");
  // icecc sends the compiler itself: nothing to adapt.
  CHECK(LaunchedCompile({"icecc"}, clang, "/w") ==
        V{"icecc", "clang-19", "--target=riscv64-linux-gnu", "-march=rv64gcv", "-c", "a.c"});
}

}  // namespace
}  // namespace ktune::host
