// Content hashing for the content-addressed store: BLAKE2b-256 (libsodium's crypto_generichash),
// written as 64 lowercase hex digits. Host and agent must agree on this, so both use this file.
#pragma once

#include <sodium.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ktune {

constexpr size_t kHashBytes = 32;
constexpr size_t kHashHexChars = 2 * kHashBytes;

// Incremental hasher: Update() any number of times, then HexDigest() once.
class Hasher {
 public:
  Hasher();
  void Update(std::string_view bytes);
  std::string HexDigest();

 private:
  crypto_generichash_state state_;
};

std::string HashBytes(std::string_view bytes);
Result<std::string> HashFile(const std::string& path);

// True when `s` has the form of a digest made by this file (64 lowercase hex digits).
bool IsHexDigest(std::string_view s);

}  // namespace ktune
