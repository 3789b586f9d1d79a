# aarch64 (armv8-a) with Debian's gcc-12 cross compiler, static; runs here under qemu-aarch64.
# Triton .llir is compiled by clang-19 for the same target. Format: docs/KSPEC.md.
description = aarch64 gcc-12, armv8-a
processor = aarch64
cc = aarch64-linux-gnu-gcc
cxx = aarch64-linux-gnu-g++
target_flags = -march=armv8-a
cflags = -O2 -g
ldflags = -static
ll_cc = clang-19
ll_flags = --target=aarch64-linux-gnu -march=armv8-a
objdump = llvm-objdump-19
emulator = qemu-aarch64
name_prefix = A64_
name_suffix = _g_static_O2
packages = aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu aarch64-linux-gnu-g++:g++-aarch64-linux-gnu clang-19:clang-19 llvm-objdump-19:llvm-19 qemu-aarch64:qemu-user
