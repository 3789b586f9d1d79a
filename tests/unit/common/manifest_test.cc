#include <doctest/doctest.h>

#include "common/hash.h"
#include "common/manifest.h"

namespace ktune {
namespace {

Manifest Sample() {
  Manifest m;
  m.kernel = "matmul";
  m.files = {{"matmul/run/test_data/matrix_4_0.txt", HashBytes("data"), 4, 0644},
             {"matmul/run/bin/a.elf", HashBytes("elf"), 3, 0755},
             {"matmul/run/configs.json", HashBytes("{}"), 2, 0644}};
  return m;
}

TEST_CASE("bundle paths cannot leave the bundle") {
  CHECK(ValidateBundlePath("matmul/run/bin/a.elf").ok());
  for (const char* bad :
       {"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", "a/", ".", "a/\tb", "a\nb"}) {
    CHECK_MESSAGE(!ValidateBundlePath(bad).ok(), bad);
  }
}

TEST_CASE("kernel names are safe directory names") {
  CHECK(ValidateKernelName("matmul").ok());
  CHECK(ValidateKernelName("layer_norm-2.v1").ok());
  for (const char* bad : {"", ".hidden", "a/b", "a b", ".."}) {
    CHECK_MESSAGE(!ValidateKernelName(bad).ok(), bad);
  }
}

TEST_CASE("normalized manifests are sorted; duplicates and bad hashes are errors") {
  Manifest m = Sample();
  REQUIRE(NormalizeManifest(m).ok());
  CHECK(m.files[0].path == "matmul/run/bin/a.elf");
  Manifest dup = Sample();
  dup.files.push_back(dup.files[0]);
  CHECK_FALSE(NormalizeManifest(dup).ok());
  Manifest bad_hash = Sample();
  bad_hash.files[0].hash = "xyz";
  CHECK_FALSE(NormalizeManifest(bad_hash).ok());
}

TEST_CASE("the canonical text round-trips and fixes the bundle id") {
  Manifest m = Sample();
  REQUIRE(NormalizeManifest(m).ok());
  auto back = ManifestFromText(ManifestToText(m));
  REQUIRE(back.ok());
  CHECK(BundleId(*back) == BundleId(m));
  CHECK(back->files[0].mode == 0755);
  Manifest shuffled = Sample();
  std::swap(shuffled.files[0], shuffled.files[2]);
  REQUIRE(NormalizeManifest(shuffled).ok());
  CHECK(BundleId(shuffled) == BundleId(m));
  Manifest changed = m;
  changed.files[0].mode = 0644;
  CHECK(BundleId(changed) != BundleId(m));
  CHECK_FALSE(ManifestFromText("garbage").ok());
  CHECK_FALSE(ManifestFromText("ktune-bundle-1\nk\na\tb\n").ok());
}

}  // namespace
}  // namespace ktune
