#include "common/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/strings.h"

namespace ktune {

ScopedFd& ScopedFd::operator=(ScopedFd&& other) noexcept {
  if (this != &other) Reset(other.Release());
  return *this;
}

int ScopedFd::Release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void ScopedFd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Result<ScopedFd> OpenFile(const std::string& path, int flags, int mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return ErrnoError("open " + path, errno);
  return ScopedFd(fd);
}

Status ReadChunks(const std::string& path, const std::function<void(std::string_view)>& chunk) {
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_RDONLY));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + path, errno);
    if (n == 0) return Status::Ok();
    chunk(std::string_view(buf, static_cast<size_t>(n)));
  }
}

Result<std::string> ReadFile(const std::string& path) {
  std::string out;
  KT_RETURN_IF_ERROR(ReadChunks(path, [&](std::string_view piece) { out.append(piece); }));
  return out;
}

Result<std::string> ReadFilePrefix(const std::string& path, size_t max_bytes) {
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_RDONLY));
  std::string out(max_bytes, '\0');
  size_t got = 0;
  while (got < max_bytes) {
    const ssize_t n = ::read(fd.get(), out.data() + got, max_bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("read " + path, errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

Status WriteAll(int fd, std::string_view bytes, const std::string& what) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("write " + what, errno);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status WriteFileIfChanged(const std::string& path, std::string_view bytes, int mode) {
  Result<std::string> old = ReadFile(path);
  if (old.ok() && *old == bytes) return Status::Ok();
  return WriteFileAtomic(path, bytes, mode);
}

Status FsyncDirectory(const std::string& dir) {
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(dir.empty() ? "." : dir, O_RDONLY | O_DIRECTORY));
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync " + dir, errno);
  return Status::Ok();
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  // One walk when every directory is writable, as most are; a read-only one (a bundle's tree)
  // fails the removal, and then its write permission is restored and the rest removed.
  if (std::filesystem::remove_all(path, ec) != static_cast<std::uintmax_t>(-1) && !ec) return;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->symlink_status(ec).type() == std::filesystem::file_type::directory) {
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ec);
    }
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path, ec);
}

Result<LinesAppend> OpenLinesForAppend(const std::string& path) {
  LinesAppend out;
  KT_ASSIGN_OR_RETURN(out.fd, OpenFile(path, O_RDWR | O_CREAT | O_APPEND));
  KT_ASSIGN_OR_RETURN(out.text, ReadFile(path));
  const size_t keep = out.text.rfind('\n') + 1;  // 0 when there is no whole line
  if (keep < out.text.size()) {
    out.dropped_bytes = out.text.size() - keep;
    out.torn = out.text.substr(keep);
    out.text.resize(keep);
    if (::ftruncate(out.fd.get(), static_cast<off_t>(keep)) != 0 ||
        ::fdatasync(out.fd.get()) != 0) {
      return ErrnoError("truncate " + path, errno);
    }
  }
  return out;
}

Status WriteFileAtomic(const std::string& path, std::string_view bytes, int mode) {
  std::filesystem::path p(path);
  std::string dir = p.parent_path().string();
  std::string tmp = (dir.empty() ? std::string() : dir + "/") + "." + p.filename().string() +
                    ".tmp." + std::to_string(::getpid());
  {
    KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode));
    Status s = WriteAll(fd.get(), bytes, tmp);
    if (s.ok() && ::fsync(fd.get()) != 0) s = ErrnoError("fsync " + tmp, errno);
    if (s.ok() && ::fchmod(fd.get(), static_cast<mode_t>(mode)) != 0) {
      s = ErrnoError("chmod " + tmp, errno);
    }
    if (!s.ok()) {
      ::unlink(tmp.c_str());
      return s;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("rename " + tmp + " to " + path, e);
  }
  return FsyncDirectory(dir);
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return IoError("mkdir " + path + ": " + ec.message());
  return Status::Ok();
}

std::string FindInPath(const std::string& tool) {
  auto executable = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (tool.find('/') != std::string::npos) return executable(tool) ? tool : "";
  const char* path = std::getenv("PATH");
  for (std::string_view dir : Split(path ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = std::string(dir.empty() ? "." : dir) + "/" + tool;
    if (executable(candidate)) return candidate;
  }
  return "";
}

}  // namespace ktune
