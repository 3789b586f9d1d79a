// Fuzzes the bundle rules of common/manifest.h on text: ManifestFromText (the manifest an agent
// keeps in its store, which NormalizeManifest checks), and ValidateBundlePath and
// ValidateKernelName on the whole input and on each of its lines (a host's file paths and kernel
// names, which become paths on the agent).
//
// Asserts, beyond no crash and no sanitizer report:
// - a manifest that parsed is normalized: a valid kernel name, valid paths strictly in order,
//   hex hashes, permission bits only; its canonical text parses back to the same manifest, and
//   that text is a fixed point;
// - a path ValidateBundlePath accepts stays inside the bundle: under a root directory it is its
//   own lexically normal form, so it neither leaves the root nor names it;
// - a kernel name ValidateKernelName accepts is one path component other than "." and "..".
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/hash.h"
#include "common/manifest.h"
#include "common/strings.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune {
namespace {

void CheckPath(std::string_view path) {
  if (!ValidateBundlePath(path).ok()) return;
  const std::string inside = "/bundle/" + std::string(path);
  const std::string normal = std::filesystem::path(inside).lexically_normal().string();
  FUZZ_CHECK(normal == inside);
  FUZZ_CHECK(normal.size() > std::string_view("/bundle/").size());
}

void CheckKernelName(std::string_view name) {
  if (!ValidateKernelName(name).ok()) return;
  FUZZ_CHECK(name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos);
  FUZZ_CHECK(name != "." && name != "..");
}

}  // namespace
}  // namespace ktune

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckPath(text);
  CheckKernelName(text);
  for (std::string_view line : Split(text, '\n')) {
    CheckPath(line);
    CheckKernelName(line);
  }

  auto m = ManifestFromText(text);
  if (!m.ok()) return 0;
  FUZZ_CHECK(ValidateKernelName(m->kernel).ok());
  for (size_t i = 0; i < m->files.size(); ++i) {
    const FileEntry& f = m->files[i];
    FUZZ_CHECK(ValidateBundlePath(f.path).ok());
    FUZZ_CHECK(IsHexDigest(f.hash));
    FUZZ_CHECK((f.mode & ~0777u) == 0);
    if (i > 0) FUZZ_CHECK(m->files[i - 1].path < f.path);
  }
  const std::string canonical = ManifestToText(*m);
  auto again = ManifestFromText(canonical);
  FUZZ_CHECK(again.ok() && SameManifest(*again, *m));
  FUZZ_CHECK(ManifestToText(*again) == canonical);
  FUZZ_CHECK(BundleId(*again) == BundleId(*m));
  return 0;
}
