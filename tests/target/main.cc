// Target tests: ktune on emulated RISC-V targets. qemu-user: the static riscv64 agentd
// (scripts/build_agent.sh riscv64) runs under qemu-riscv64 and runs RVV variants through its
// --exec-wrapper. A test whose target is not built here says so and skips.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
