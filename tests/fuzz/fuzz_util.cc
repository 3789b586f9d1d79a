// The scratch directory and manifest equality of fuzz_util.h.
#include "tests/fuzz/fuzz_util.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <system_error>

#include "common/fs.h"

namespace ktune {

namespace fs = std::filesystem;

const std::string& FuzzScratchDir() {
  // Never destroyed: the exit handler that removes the directory reads it.
  static const std::string* const dir = [] {
    std::string base = "/dev/shm";
    if (!fs::is_directory(base)) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp && *tmp ? tmp : "/tmp";
    }
    auto* path = new std::string(base + "/ktune-fuzz-XXXXXX");
    FUZZ_CHECK(::mkdtemp(path->data()) != nullptr);
    // Searchable by others: an agent running as root runs kernels as nobody, who must reach
    // its store (agent/measure/sandbox.h), and refuses to start otherwise.
    FUZZ_CHECK(::chmod(path->c_str(), 0711) == 0);
    std::atexit([] { RemoveTree(FuzzScratchDir()); });
    return path;
  }();
  return *dir;
}

bool SameManifest(const Manifest& a, const Manifest& b) {
  if (a.kernel != b.kernel || a.files.size() != b.files.size()) return false;
  for (size_t i = 0; i < a.files.size(); ++i) {
    const FileEntry &x = a.files[i], &y = b.files[i];
    if (x.path != y.path || x.hash != y.hash || x.size_bytes != y.size_bytes || x.mode != y.mode) {
      return false;
    }
  }
  return true;
}

std::string DeltaFuzzBase(size_t kib) {
  static const std::string whole = [] {
    std::string base;
    uint32_t x = 12345;
    for (int line = 0; base.size() < 255 * 1024; ++line) {
      base += "matmul_" + std::to_string(line) + ": Running Triton Kernel Time: 0.01" +
              std::to_string(line % 7) + " s\n";
      for (int i = 0; i < 64; ++i)
        base += static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
    }
    base.resize(255 * 1024);
    return base;
  }();
  return whole.substr(0, std::min<size_t>(kib, 255) * 1024);
}

}  // namespace ktune
