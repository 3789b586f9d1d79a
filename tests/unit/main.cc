// Unit tests: pure functions and file-system code; no sockets, no child processes.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
