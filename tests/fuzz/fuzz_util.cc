// The scratch directory and manifest equality of fuzz_util.h.
#include "tests/fuzz/fuzz_util.h"

#include <sys/stat.h>

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
    // its store (agent/sandbox.h), and refuses to start otherwise.
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

}  // namespace ktune
