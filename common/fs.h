// File-system helpers shared by host and agent: a move-only file-descriptor owner (every fd ktune
// opens is close-on-exec), whole-file reads, full writes, and durable whole-file writes (temp
// file + fsync + rename).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ktune {

// Owns one file descriptor; closes it on destruction. Move-only.
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(other.Release()) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept;
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release();
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// open(2) with O_CLOEXEC added.
Result<ScopedFd> OpenFile(const std::string& path, int flags, int mode = 0644);

// Calls `chunk` with successive pieces of the file at `path`, up to its end.
Status ReadChunks(const std::string& path, const std::function<void(std::string_view)>& chunk);

Result<std::string> ReadFile(const std::string& path);
// The file's first `max_bytes` (fewer when it is shorter).
Result<std::string> ReadFilePrefix(const std::string& path, size_t max_bytes);

// Writes all of `bytes` to `fd`, retrying on EINTR and short writes.
Status WriteAll(int fd, std::string_view bytes, const std::string& what);

// Writes `bytes` to `path` durably: a temp file in the same directory, fsync, rename, fsync of
// the directory. Readers see either the old or the new content, never a part.
Status WriteFileAtomic(const std::string& path, std::string_view bytes, int mode = 0644);

// WriteFileAtomic unless the file already holds exactly `bytes` (its mtime then stays, so
// make-like tools see no change).
Status WriteFileIfChanged(const std::string& path, std::string_view bytes, int mode = 0644);

Status FsyncDirectory(const std::string& dir);

// A line-per-record file opened (created when missing) to append to, as a run's results and
// samples are: `text` is what it held, less an unterminated last line -- a record its writer was
// writing when it died -- which is also cut from the file (`torn`, `dropped_bytes`), so that what
// is appended starts a line of its own.
struct LinesAppend {
  ScopedFd fd;  // O_APPEND
  std::string text;
  std::string torn;
  uint64_t dropped_bytes = 0;
};
Result<LinesAppend> OpenLinesForAppend(const std::string& path);

// The full path of `tool`: a name looked up in PATH, or a path; "" when it is not an executable
// regular file.
std::string FindInPath(const std::string& tool);

// mkdir -p.
Status MakeDirs(const std::string& path);

// rm -rf that also removes read-only directories (the agent's trees are made read-only); links
// are removed, never followed.
void RemoveTree(const std::string& path);

}  // namespace ktune
