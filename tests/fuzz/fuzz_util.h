// What the fuzz targets of tests/fuzz share: FUZZ_CHECK, an invariant that aborts when it fails
// (so libFuzzer keeps the input as a crash), FUZZ_CHECK_OK for a Status or Result that must be
// ok, a scratch directory for the targets whose parsers read files, manifest equality, and the
// delta base decompress_chunk's inputs choose.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/manifest.h"
#include "common/status.h"

#define FUZZ_CHECK(cond)                                                                \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

#define FUZZ_CHECK_OK(expr)                                                      \
  do {                                                                           \
    const auto& fuzz_checked_ = (expr);                                          \
    if (!fuzz_checked_.ok()) {                                                   \
      std::fprintf(stderr, "%s:%d: not ok: %s: %s\n", __FILE__, __LINE__, #expr, \
                   ::ktune::StatusOf(fuzz_checked_).message().c_str());          \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

namespace ktune {

inline const Status& StatusOf(const Status& s) {
  return s;
}
template <typename T>
const Status& StatusOf(const Result<T>& r) {
  return r.status();
}

// A directory of this process's own, made on first use and removed (with everything in it) when
// the process exits normally: in /dev/shm when there is one, so that fsync costs nothing, else
// in $TMPDIR or /tmp.
const std::string& FuzzScratchDir();

// The same kernel and the same files (path, hash, size, mode), in the same order.
bool SameManifest(const Manifest& a, const Manifest& b);

// The first `kib` KiB (at most 255) of fixed bytes, lines of text and runs of noise taking
// turns: the base a decompress_chunk input's frame was compressed against (its fourth byte says
// how much of it; make_seeds compresses against the same).
std::string DeltaFuzzBase(size_t kib);

}  // namespace ktune
