#include "common/hash.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
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
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_RDONLY));
  Hasher h;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + path, errno);
    if (n == 0) break;
    h.Update(std::string_view(buf, static_cast<size_t>(n)));
  }
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
