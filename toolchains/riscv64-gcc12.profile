# riscv64 scalar (rv64gc) with Debian's gcc-12 cross compiler, static. Triton .llir is compiled
# by clang-19 for the same target. Format: docs/KSPEC.md.
description = riscv64 gcc-12, rv64gc (scalar)
processor = riscv64
cc = riscv64-linux-gnu-gcc
cxx = riscv64-linux-gnu-g++
target_flags = -march=rv64gc -mabi=lp64d
cflags = -O2 -g
ldflags = -static
ll_cc = clang-19
ll_flags = --target=riscv64-linux-gnu -march=rv64gc -mabi=lp64d
objdump = llvm-objdump-19
emulator = qemu-riscv64 -cpu rv64
name_prefix = RV64GC_
name_suffix = _g_static_O2
packages = riscv64-linux-gnu-gcc:gcc-riscv64-linux-gnu riscv64-linux-gnu-g++:g++-riscv64-linux-gnu clang-19:clang-19 llvm-objdump-19:llvm-19 qemu-riscv64:qemu-user
