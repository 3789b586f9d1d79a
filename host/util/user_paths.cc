#include "host/util/user_paths.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "common/strings.h"

namespace ktune::host {
namespace fs = std::filesystem;

namespace {

// At most this many links are followed for one path, as the kernel's MAXSYMLINKS.
constexpr int kMaxLinks = 40;

// Where `path` leads when every link on it is followed; a dangling last link leads to the file it
// names. An error for a loop.
Result<fs::path> FollowLinks(const fs::path& path) {
  fs::path at = path;
  for (int links = 0;; ++links) {
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    if (links == kMaxLinks) return InvalidArgument(path.string() + ": too many levels of links");
    std::error_code ec;
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) return IoError("readlink " + at.string() + ": " + ec.message());
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
}

// The descriptor a path names among this process's own, -1 for any other path.
int OwnDescriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view dir : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(dir)) continue;
    const Result<int> fd = ParseInt(std::string_view(path).substr(dir.size()));
    if (fd.ok() && *fd >= 0) return *fd;
  }
  return -1;
}

bool Inside(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

// The root's canonical path and `rel`'s, each component that is a link resolved and checked to
// stay inside the root. `must_exist`: a missing component is an error (else the check stops at
// the first one missing, and the second path is where it got to; a root that does not exist yet
// holds nothing to check).
Result<std::pair<fs::path, fs::path>> ResolveBeneath(const std::string& root,
                                                     const std::string& rel, bool must_exist) {
  std::error_code ec;
  const fs::path canonical_root = fs::canonical(root, ec);
  if (ec && !must_exist && !fs::exists(root, ec) && !ec) {
    return std::make_pair(fs::path(), fs::path());
  }
  if (ec) return NotFound("cannot resolve " + root + ": " + ec.message());
  const fs::path relative = fs::path(rel).lexically_normal();
  if (relative.is_absolute() || relative.empty() || *relative.begin() == "..") {
    return InvalidArgument("path " + rel + " is not inside " + root);
  }
  fs::path named = fs::path(root), real = canonical_root;
  for (const fs::path& part : relative) {
    named /= part;
    struct stat st;
    if (::lstat((real / part).c_str(), &st) != 0) {
      if (errno != ENOENT) return ErrnoError("stat " + named.string(), errno);
      if (!must_exist) return std::make_pair(canonical_root, real);
      return NotFound(named.string() + " does not exist");
    }
    if (!S_ISLNK(st.st_mode)) {
      real /= part;
      continue;
    }
    const fs::path to = fs::weakly_canonical(real / part, ec);
    if (ec) return IoError("cannot resolve " + named.string() + ": " + ec.message());
    if (!Inside(to, canonical_root)) {
      return InvalidArgument(named.string() + " is a link to " + to.string() + ", outside " + root +
                             " (only what resolves inside it is read)");
    }
    real = to;
  }
  return std::make_pair(canonical_root, real);
}

}  // namespace

Status WriteUserFile(const std::string& path, std::string_view bytes) {
  // One of this process's own descriptors (/dev/stdout, /dev/fd/1, /proc/self/fd/1): written
  // through it, as bash does, so that `-o /dev/stdout >> log` appends to log, never replaces it.
  if (const int fd = OwnDescriptor(path); fd >= 0) return WriteAll(fd, bytes, path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {  // the kernel follows every link: none, or dangling
    if (errno != ENOENT) return ErrnoError("stat " + path, errno);
    KT_ASSIGN_OR_RETURN(const fs::path target, FollowLinks(path));
    return WriteFileAtomic(target.string(), bytes);
  }
  if (S_ISDIR(st.st_mode)) return InvalidArgument(path + " is a directory, not a file to write");
  if (!S_ISREG(st.st_mode)) {
    // A device, a FIFO, /dev/stdout on a pipe: written into as it is, as `>` would.
    KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_WRONLY | O_TRUNC));
    return WriteAll(fd.get(), bytes, path);
  }
  std::error_code ec;
  const fs::path target = fs::canonical(path, ec);
  if (ec) return IoError("cannot resolve " + path + ": " + ec.message());
  return WriteFileAtomic(target.string(), bytes, st.st_mode & 07777);
}

Result<ScopedFd> OpenBeneath(const std::string& root, const std::string& rel) {
  KT_ASSIGN_OR_RETURN(const auto resolved, ResolveBeneath(root, rel, /*must_exist=*/true));
  const auto& [canonical_root, real] = resolved;
  KT_ASSIGN_OR_RETURN(ScopedFd dir, OpenFile(canonical_root.string(), O_PATH | O_DIRECTORY));
  // The path is free of links now; the kernel opens it so, beneath the root: one that a link
  // replaced since is refused rather than followed. Non-blocking: a FIFO put there does not
  // hang khost, it is refused below.
  const std::string inside = real.lexically_relative(canonical_root).string();
  struct open_how how = {};
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, dir.get(), inside.c_str(), &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    // A kernel before 5.6, or a seccomp filter that does not know openat2: the last link
    // refused only, the path having been checked just before.
    fd = ::openat(dir.get(), inside.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  }
  const std::string named = root + "/" + rel;
  if (fd < 0) {
    if (errno == ELOOP || errno == EXDEV)
      return IoError(named + " changed into a link while being read");
    return ErrnoError("open " + named, errno);
  }
  ScopedFd file(static_cast<int>(fd));
  struct stat st;
  if (::fstat(file.get(), &st) != 0) return ErrnoError("stat " + named, errno);
  if (!S_ISREG(st.st_mode)) return InvalidArgument(named + " is not a regular file");
  return file;
}

Result<std::string> ReadBeneath(const std::string& root, const std::string& rel) {
  KT_ASSIGN_OR_RETURN(const ScopedFd fd, OpenBeneath(root, rel));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + root + "/" + rel, errno);
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

Status CheckBeneath(const std::string& root, const std::string& rel) {
  return ResolveBeneath(root, rel, /*must_exist=*/false).status();
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string HomeDir() {
  return EnvOr("HOME", "/tmp");
}

}  // namespace ktune::host
