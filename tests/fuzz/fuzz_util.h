// What the fuzz targets of tests/fuzz share: FUZZ_CHECK, an invariant that aborts when it fails
// (so libFuzzer keeps the input as a crash), and a scratch directory for the targets whose
// parsers read files.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(cond)                                                                \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

namespace ktune {

// A directory of this process's own, made on first use and removed (with everything in it) when
// the process exits normally: in /dev/shm when there is one, so that fsync costs nothing, else
// in $TMPDIR or /tmp.
const std::string& FuzzScratchDir();

// rm -rf `path`, read-only directories included (the agent's bundle trees are read-only).
void RemoveTree(const std::string& path);

}  // namespace ktune
