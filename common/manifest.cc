#include "common/manifest.h"

#include <algorithm>
#include <cstdio>

#include "common/hash.h"
#include "common/strings.h"

namespace ktune {

Status ValidateBundlePath(std::string_view path) {
  if (path.empty()) return InvalidArgument("empty path in bundle");
  if (path.front() == '/') return InvalidArgument("absolute path in bundle: " + std::string(path));
  if (path.size() > 4096) return InvalidArgument("path too long in bundle");
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return InvalidArgument("control character in bundle path");
    }
  }
  for (std::string_view part : Split(path, '/')) {
    if (part.empty() || part == "." || part == "..") {
      return InvalidArgument("path leaves or confuses the bundle: " + std::string(path));
    }
  }
  return Status::Ok();
}

Status ValidateKernelName(std::string_view name) {
  if (name.empty() || name.size() > 128 || name.front() == '.') {
    return InvalidArgument("invalid kernel name '" + std::string(name) + "'");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return InvalidArgument("invalid kernel name '" + std::string(name) + "'");
  }
  return Status::Ok();
}

Status NormalizeManifest(Manifest& m) {
  KT_RETURN_IF_ERROR(ValidateKernelName(m.kernel));
  for (const FileEntry& f : m.files) {
    KT_RETURN_IF_ERROR(ValidateBundlePath(f.path));
    if (!IsHexDigest(f.hash)) return InvalidArgument("malformed hash for " + f.path);
  }
  std::sort(m.files.begin(), m.files.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  for (size_t i = 1; i < m.files.size(); ++i) {
    if (m.files[i].path == m.files[i - 1].path) {
      return InvalidArgument("duplicate path in bundle: " + m.files[i].path);
    }
  }
  return Status::Ok();
}

namespace {
constexpr std::string_view kManifestMagic = "ktune-bundle-1";
}  // namespace

std::string ManifestToText(const Manifest& m) {
  std::string out = std::string(kManifestMagic) + "\n" + m.kernel + "\n";
  for (const FileEntry& f : m.files) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%o", f.mode & 0777);
    out += f.path + "\t" + f.hash + "\t" + std::to_string(f.size_bytes) + "\t" + mode + "\n";
  }
  return out;
}

Result<Manifest> ManifestFromText(std::string_view text) {
  std::vector<std::string_view> lines = Split(text, '\n');
  if (lines.size() < 3 || lines[0] != kManifestMagic || !lines.back().empty()) {
    return InvalidArgument("not a ktune manifest");
  }
  Manifest m;
  m.kernel = std::string(lines[1]);
  for (size_t i = 2; i + 1 < lines.size(); ++i) {
    std::vector<std::string_view> f = Split(lines[i], '\t');
    if (f.size() != 4)
      return InvalidArgument("manifest line " + std::to_string(i + 1) + " malformed");
    KT_ASSIGN_OR_RETURN(uint64_t size, ParseUint64(f[2]));
    unsigned mode = 0;
    for (char c : f[3]) {
      if (c < '0' || c > '7' || mode > 0777) return InvalidArgument("manifest mode malformed");
      mode = mode * 8 + static_cast<unsigned>(c - '0');
    }
    m.files.push_back({std::string(f[0]), std::string(f[1]), size, mode & 0777});
  }
  KT_RETURN_IF_ERROR(NormalizeManifest(m));
  return m;
}

std::string BundleId(const Manifest& m) {
  return HashBytes(ManifestToText(m));
}

}  // namespace ktune
