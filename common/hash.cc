#include "common/hash.h"

#include <cstdlib>

#include "common/fs.h"

namespace ktune {
namespace {

void EnsureSodium() {
  static const bool initialized = [] {
    if (sodium_init() < 0) std::abort();  // libsodium cannot run without its RNG; nothing to do.
    return true;
  }();
  (void)initialized;
}

}  // namespace

Hasher::Hasher() {
  EnsureSodium();
  crypto_generichash_init(&state_, nullptr, 0, kHashBytes);
}

void Hasher::Update(std::string_view bytes) {
  crypto_generichash_update(&state_, reinterpret_cast<const unsigned char*>(bytes.data()),
                            bytes.size());
}

std::string Hasher::HexDigest() {
  unsigned char digest[kHashBytes];
  crypto_generichash_final(&state_, digest, sizeof digest);
  char hex[kHashHexChars + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string(hex, kHashHexChars);
}

std::string HashBytes(std::string_view bytes) {
  Hasher h;
  h.Update(bytes);
  return h.HexDigest();
}

Result<std::string> HashFile(const std::string& path) {
  Hasher h;
  KT_RETURN_IF_ERROR(ReadChunks(path, [&](std::string_view piece) { h.Update(piece); }));
  return h.HexDigest();
}

bool IsHexDigest(std::string_view s) {
  if (s.size() != kHashHexChars) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace ktune
