# This machine (x86_64 here), static, with the system's gcc; the ELFs run directly. Triton .llir
# is compiled by clang-19. Format: docs/KSPEC.md.
description = native (this machine), gcc, static
cc = gcc
cxx = g++
target_flags =
cflags = -O2 -g
ldflags = -static
ll_cc = clang-19
ll_flags =
objdump = llvm-objdump-19
name_suffix = _g_static_O2
packages = gcc:gcc g++:g++ clang-19:clang-19 llvm-objdump-19:llvm-19
