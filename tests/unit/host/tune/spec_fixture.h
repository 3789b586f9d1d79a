// Kernel specs and a toolchain profile: for the tests of host/tune.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "host/tune/kspec.h"
#include "host/tune/toolchain.h"
#include "tests/contains.h"

namespace ktune::host::fixture {

using test::Contains;

inline KernelSpec Spec() {
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

inline Toolchain Rvv() {
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

inline const char kMatmul[] =
    "# a comment\n"
    "kernel: matmul\n"
    "main: main.c ../common/ktune_kernel.c\n"
    "kernel_source: matmul_kernel.c\n"
    "include: ../common\n"
    "param: BLOCK_SIZE_M = 4 8 16 8 4\n"
    "param: BLOCK_SIZE_N = 8 16\n"
    "constant: GROUP_SIZE_M = 8\n"
    "constraint: BLOCK_SIZE_M * BLOCK_SIZE_N <= 64\n"
    "shape: M=2 N=3 K=4 RUN_COUNT=5\n"
    "args: {M}x{N}x{K}x{RUN_COUNT} --flag\n"
    "input: A float32 [M, K] uniform(-1, 1) seed=1\n"
    "input: B float32 [K, N] normal(0, 2) seed=2\n"
    "output: C float32 [M, N] atol=1e-4 rtol=0.5\n"
    "reference: matmul\n"
    "data: txt\n";

inline KernelSpec Parse(const std::string& text) {
  auto spec = ParseKernelSpec(text, "/k/matmul/matmul.kspec");
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  return *spec;
}

}  // namespace ktune::host::fixture
