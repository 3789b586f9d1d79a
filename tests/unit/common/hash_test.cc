#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

#include "common/fs.h"
#include "common/hash.h"

namespace ktune {
namespace {

// Expected digests computed independently with Python's hashlib.blake2b(m, digest_size=32).
TEST_CASE("content hashes are BLAKE2b-256 in hex") {
  CHECK(HashBytes("") == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  CHECK(HashBytes("abc") == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
  Hasher h;
  h.Update("kt");
  h.Update("une");
  CHECK(h.HexDigest() == "2731088ba72c4564b50e12531e621abf7f1de13e765b867db477e3add03687da");
}

TEST_CASE("files hash like their bytes; digests are recognized") {
  const std::string path = std::filesystem::temp_directory_path() / "ktune_hash_test.txt";
  REQUIRE(WriteFileAtomic(path, "abc").ok());
  CHECK(HashFile(path).value() == HashBytes("abc"));
  std::remove(path.c_str());
  CHECK_FALSE(HashFile(path).ok());
  CHECK(IsHexDigest(HashBytes("x")));
  CHECK_FALSE(IsHexDigest("abc"));
  CHECK_FALSE(IsHexDigest(std::string(64, 'G')));
  CHECK_FALSE(IsHexDigest(std::string(64, 'A')));  // uppercase is not our form
}

}  // namespace
}  // namespace ktune
