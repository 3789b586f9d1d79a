// Integration tests: real agentd processes on loopback, real khost processes, real ELFs, real
// perf events. Nothing here is mocked except where a test says so by name.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
