// System calls that leave errno alone, for the one place in ktune that needs them: the launch
// child of agent/measure/workload.cc, which runs on the agent's memory (CLONE_VM) alongside the
// agent's own threads until it execs. There, libc's wrappers are off limits: they set errno and
// take cancellation state in the thread-local storage of the agent thread that cloned the child,
// which keeps running. RawSyscall returns the kernel's result: -errno on failure.
#pragma once

#include <sys/syscall.h>

namespace ktune::agent {

#if defined(__x86_64__)

[[gnu::always_inline]] inline long RawSyscall(long nr, long a = 0, long b = 0, long c = 0,
                                              long d = 0, long e = 0, long f = 0) {
  long ret;
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  return ret;
}

#elif defined(__aarch64__)

[[gnu::always_inline]] inline long RawSyscall(long nr, long a = 0, long b = 0, long c = 0,
                                              long d = 0, long e = 0, long f = 0) {
  register long x8 asm("x8") = nr;
  register long x0 asm("x0") = a;
  register long x1 asm("x1") = b;
  register long x2 asm("x2") = c;
  register long x3 asm("x3") = d;
  register long x4 asm("x4") = e;
  register long x5 asm("x5") = f;
  asm volatile("svc 0"
               : "+r"(x0)
               : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
               : "memory");
  return x0;
}

#elif defined(__riscv) && __riscv_xlen == 64

[[gnu::always_inline]] inline long RawSyscall(long nr, long a = 0, long b = 0, long c = 0,
                                              long d = 0, long e = 0, long f = 0) {
  register long a7 asm("a7") = nr;
  register long a0 asm("a0") = a;
  register long a1 asm("a1") = b;
  register long a2 asm("a2") = c;
  register long a3 asm("a3") = d;
  register long a4 asm("a4") = e;
  register long a5 asm("a5") = f;
  asm volatile("ecall"
               : "+r"(a0)
               : "r"(a7), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5)
               : "memory");
  return a0;
}

#else
#error "agentd launches workloads on x86_64, aarch64 and riscv64 only"
#endif

}  // namespace ktune::agent
