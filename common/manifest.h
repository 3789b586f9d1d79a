// A bundle manifest: the files of one kernel's run directory (path relative to the directory
// that holds <kernel>/, content hash, size, mode). Its canonical text hashes to the bundle id,
// so the same files always make the same bundle.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune {

struct FileEntry {
  std::string path;  // relative, '/'-separated, e.g. "matmul/run/bin/x.elf"
  std::string hash;  // common/hash.h digest of the content
  uint64_t size_bytes = 0;
  uint32_t mode = 0644;  // permission bits only
};

struct Manifest {
  std::string kernel;
  std::vector<FileEntry> files;  // sorted by path, no duplicates (see Normalize)
};

// Sorts the files by path and checks every path and hash; duplicate paths are an error.
Status NormalizeManifest(Manifest& m);

// The canonical text of a normalized manifest: a version line, the kernel, then one
// "path<TAB>hash<TAB>size<TAB>mode(octal)" line per file. Its hash is the bundle id.
std::string ManifestToText(const Manifest& m);
Result<Manifest> ManifestFromText(std::string_view text);

// The bundle id: hash of ManifestToText of a normalized manifest.
std::string BundleId(const Manifest& m);

// A path may be stored in a bundle when it is relative, non-empty, and has no "", "." or ".."
// component: it can never leave the bundle's directory.
Status ValidateBundlePath(std::string_view path);

// Kernel names become directory names: letters, digits, '_', '-', '.', not starting with '.'.
Status ValidateKernelName(std::string_view name);

}  // namespace ktune
