// The pure parts of khost tune: toolchain profiles, Triton input (blk_constants.json, IR
// retargeting), variant planning (names, constants, commands, configs.json) and its options.
#include <doctest/doctest.h>

#include "common/fs.h"
#include "host/cli/command.h"
#include "host/results/kernel_dir.h"
#include "host/tune/kspec.h"
#include "host/tune/toolchain.h"
#include "host/tune/triton.h"
#include "host/tune/variant_build.h"
#include "host/util/subprocess.h"

namespace ktune::host {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

KernelSpec Spec() {
  auto spec = ParseKernelSpec(
      "kernel: matmul\n"
      "main: main.c ../common/ktune_kernel.c\n"
      "kernel_source: matmul_kernel.c\n"
      "include: ../common\n"
      "cflags: -DEXTRA\n"
      "param: BLOCK_SIZE_M = 4 8\n"
      "param: BLOCK_SIZE_N = 16\n"
      "constant: GROUP_SIZE_M = 8\n"
      "shape: M=2 N=3 K=4\n"
      "args: {M}x{N}x{K}x1\n"
      "input: A float32 [M, K] uniform(-1, 1)\n"
      "input: B float32 [K, N] uniform(-1, 1)\n"
      "output: C float32 [M, N] atol=1e-4 rtol=0.5\n"
      "reference: matmul\n",
      "/k/matmul/matmul.kspec");
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  return *spec;
}

Toolchain Rvv() {
  auto t = ParseToolchain(
      "# comment\n"
      "description = riscv64 clang\n"
      "processor = riscv64\n"
      "cc = clang-19\n"
      "cxx = clang++-19\n"
      "target_flags = --target=riscv64-linux-gnu  -march=rv64gcv_zvl256b\n"
      "cflags = -O2\t-g\n"
      "ldflags = -static\n"
      "objdump = llvm-objdump-19\n"
      "emulator = qemu-riscv64 -cpu rv64,v=true\n"
      "name_prefix = VL256_\n"
      "name_suffix = _g_static_O2\n"
      "packages = clang-19:clang-19 qemu-riscv64:qemu-user\n",
      "/t/rvv.profile");
  REQUIRE_MESSAGE(t.ok(), t.status().message());
  return *t;
}

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

TEST_CASE("blk_constants.json: parameters in spec order; constants must agree") {
  const KernelSpec spec = Spec();
  auto c = ParseBlkConstants(R"({"BLOCK_SIZE_N": 16, "BLOCK_SIZE_M": 8, "GROUP_SIZE_M": 8})", spec,
                             "b.json");
  REQUIRE(c.ok());
  CHECK(*c == Config{8, 16});
  auto error = [&](const std::string& text) {
    auto r = ParseBlkConstants(text, spec, "b.json");
    REQUIRE(!r.ok());
    return r.status().message();
  };
  CHECK(error(R"({"BLOCK_SIZE_M": 8})") == "b.json: no value for parameter BLOCK_SIZE_N");
  CHECK(error(R"({"BLOCK_SIZE_M": 8, "BLOCK_SIZE_N": 16, "GROUP_SIZE_M": 4})") ==
        "b.json: GROUP_SIZE_M is 4 but /k/matmul/matmul.kspec fixes it at 8");
  CHECK(Contains(error(R"({"BLOCK_SIZE_M": 8, "BLOCK_SIZE_N": 16, "num_warps": 4})"),
                 "num_warps is neither a parameter nor a constant"));
  CHECK(error(R"({"BLOCK_SIZE_M": "8"})") == "b.json: BLOCK_SIZE_M is not an integer");
  CHECK(error("[1") == "b.json: not a JSON object");
}

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

TEST_CASE("variant names, constants and blk_constants.json follow the seed's conventions") {
  const KernelSpec spec = Spec();
  const Config config{8, 16};
  CHECK(VariantStem(spec, config) == "matmul_8_16");
  CHECK(ConstantsSource(spec, config) ==
        "/* Generated by khost tune from matmul.kspec: this variant's constants. */\n"
        "const int matmul_BLOCK_SIZE_M = 8;\n"
        "const int matmul_BLOCK_SIZE_N = 16;\n"
        "const int matmul_GROUP_SIZE_M = 8;\n"
        "const double ktune_atol[] = {0.0001};\n"
        "const double ktune_rtol[] = {0.5};\n");
  CHECK(BlkConstantsJson(spec, config) ==
        "{\n  \"BLOCK_SIZE_M\": 8,\n  \"BLOCK_SIZE_N\": 16,\n  \"GROUP_SIZE_M\": 8\n}\n");
  CHECK(Defines(spec, config) ==
        std::vector<std::string>{"-DBLOCK_SIZE_M=8", "-DBLOCK_SIZE_N=16", "-DGROUP_SIZE_M=8"});
}

TEST_CASE("planned variants: paths, sources in order, generated files, compile commands") {
  const KernelSpec spec = Spec();
  const Toolchain tc = Rvv();
  const auto jobs = PlanVariants(spec, tc, {{4, 16}, {8, 16}}, {}, "/r/matmul/run");
  REQUIRE(jobs.size() == 2);
  const VariantJob& j = jobs[1];
  CHECK(j.elf_name == "VL256_matmul_8_16_g_static_O2.elf");
  CHECK(j.work_dir == "/r/matmul/run/build/rvv/matmul_8_16");
  CHECK(j.sources == std::vector<std::string>{"/k/matmul/main.c", "/k/common/ktune_kernel.c",
                                              "/k/matmul/matmul_kernel.c",
                                              "/r/matmul/run/build/rvv/matmul_8_16/constants.c"});
  REQUIRE(j.generated.size() == 2);
  CHECK(j.generated[0].first == "constants.c");
  CHECK(j.generated[1].first == "blk_constants.json");

  CHECK(CompileCommand(spec, tc, j, "/k/matmul/main.c", "/o/0_main.c.o") ==
        std::vector<std::string>{"clang-19", "--target=riscv64-linux-gnu", "-march=rv64gcv_zvl256b",
                                 "-O2", "-g", "-DEXTRA", "-I/k/matmul", "-I/k/common",
                                 "-DBLOCK_SIZE_M=8", "-DBLOCK_SIZE_N=16", "-DGROUP_SIZE_M=8", "-c",
                                 "/k/matmul/main.c", "-o", "/o/0_main.c.o"});
  CHECK(CompileCommand(spec, tc, j, "/t/launcher.cpp", "/o/l.o")[0] == "clang++-19");
  CHECK(CompileCommand(spec, tc, j, "/t/k.ll", "/o/k.o") ==
        std::vector<std::string>{"clang-19", "--target=riscv64-linux-gnu", "-march=rv64gcv_zvl256b",
                                 "-O2", "-g", "-Wno-override-module", "-c", "-x", "ir", "/t/k.ll",
                                 "-o", "/o/k.o"});

  // Triton input replaces the kernel sources with the retargeted IR and the launcher.
  const auto triton = PlanVariants(
      spec, tc, {{4, 16}}, {{"; ir\n", "/t/matmul_4/matmul_kernel_launcher.cpp"}}, "/r/matmul/run");
  REQUIRE(triton.size() == 1);
  CHECK(triton[0].sources ==
        std::vector<std::string>{"/k/matmul/main.c", "/k/common/ktune_kernel.c",
                                 "/r/matmul/run/build/rvv/matmul_4_16/matmul_kernel.ll",
                                 "/t/matmul_4/matmul_kernel_launcher.cpp",
                                 "/r/matmul/run/build/rvv/matmul_4_16/constants.c"});
  CHECK(triton[0].generated[0] ==
        std::pair<std::string, std::string>{"matmul_kernel.ll", "; ir\n"});
}

TEST_CASE("configs.json lists the variants that built, in the seed's format") {
  const KernelSpec spec = Spec();
  const auto jobs = PlanVariants(spec, Rvv(), {{4, 16}, {8, 16}}, {}, "/r/matmul/run");
  std::vector<VariantBuild> builds(2);
  builds[0].state = BuildState::kFailed;
  builds[1].state = BuildState::kCached;
  const std::string text = ConfigsJson(spec, jobs, builds, {"2x3x4x1"});
  CHECK(text ==
        "{\n"
        "  \"variants\": [\n"
        "    {\n"
        "      \"BLOCK_SIZE_M\": 8,\n"
        "      \"BLOCK_SIZE_N\": 16,\n"
        "      \"elf_path\": \"matmul/run/bin/VL256_matmul_8_16_g_static_O2.elf\",\n"
        "      \"asm_path\": \"matmul/run/bin/VL256_matmul_8_16_g_static_O2.elf.s\",\n"
        "      \"perf_data_path\": \"matmul/run/perf/VL256_matmul_8_16_g_static_O2.data\",\n"
        "      \"perf_report_path\": \"matmul/run/perf/VL256_matmul_8_16_g_static_O2.txt\",\n"
        "      \"args\": [\n"
        "        \"2x3x4x1\"\n"
        "      ]\n"
        "    }\n"
        "  ],\n"
        "  \"perf_files\": {\n"
        "    \"stat\": \"matmul/run/perf_stats.csv\"\n"
        "  }\n"
        "}\n");
  auto dir = ParseConfigsJson(text, "matmul");
  REQUIRE(dir.ok());
  CHECK(dir->variants[0].params == Params{{"BLOCK_SIZE_M", "8"}, {"BLOCK_SIZE_N", "16"}});
}

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

TEST_CASE("tune options: defaults and refusals") {
  auto d = ParseTuneArgs({"matmul"});
  REQUIRE(d.ok());
  CHECK(d->toolchain == "rvv-clang19");
  CHECK(d->jobs == 0);
  CHECK(!d->sample);
  CHECK(!d->check);
  CHECK(d->kernels_dir == KTUNE_SOURCE_DIR "/kernels");
  auto o = ParseTuneArgs({"k.kspec", "-j", "3", "--sample", "5", "--seed", "9", "--shape", "M=4",
                          "--shape", "N=8", "--check", "--toolchain", "native"});
  REQUIRE(o.ok());
  CHECK(o->jobs == 3);
  CHECK(*o->sample == 5);
  CHECK(o->seed == 9);
  CHECK(o->shape == std::vector<std::string>{"M=4", "N=8"});
  CHECK(o->check);
  CHECK(!ParseTuneArgs({"matmul", "--sample", "0"}).ok());
  CHECK(!ParseTuneArgs({"matmul", "--check-timeout", "0"}).ok());
  CHECK(!ParseTuneArgs({"matmul", "--triton", "d", "--sample", "2"}).ok());
  CHECK(!ParseTuneArgs({}).ok());
}

}  // namespace
}  // namespace ktune::host
