# riscv64 with RVV 1.0 at VLEN 256 (SpacemiT K1 / X60 and alike): clang-19, static, linked by GNU ld
# against the gcc-12 cross sysroot (/usr/riscv64-linux-gnu). -gdwarf-4 because binutils 2.40's ld
# crashes on clang-19's default DWARF 5 for riscv64. Format: docs/KSPEC.md.
description = riscv64 clang-19, RVV 1.0, VLEN 256
processor = riscv64
cc = clang-19
cxx = clang++-19
target_flags = --target=riscv64-linux-gnu -march=rv64gcv_zvl256b -mrvv-vector-bits=zvl
cflags = -O2 -g -gdwarf-4
ldflags = -static
objdump = llvm-objdump-19
emulator = qemu-riscv64 -cpu rv64,v=true,vlen=256
name_prefix = VL256_
name_suffix = _g_static_O2
packages = clang-19:clang-19 clang++-19:clang-19 llvm-objdump-19:llvm-19 riscv64-linux-gnu-ld:binutils-riscv64-linux-gnu riscv64-linux-gnu-gcc:gcc-riscv64-linux-gnu riscv64-linux-gnu-g++:g++-riscv64-linux-gnu qemu-riscv64:qemu-user
needs = riscv64-linux-gnu-ld riscv64-linux-gnu-gcc riscv64-linux-gnu-g++
