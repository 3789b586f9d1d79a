// The paths a user names, read and written as the user means them: a file written where a shell's
// redirection would write (through a symbolic link, into a device or FIFO as it is), and a file
// read under a root (a kernel's run directory tree) only where it resolves inside that root, a
// link that leads out of it refused and named.
#pragma once

#include <string>
#include <string_view>

#include "common/fs.h"
#include "common/status.h"

namespace ktune::host {

// Writes `bytes` to the path a user named (khost report -o, a spec that --apply-best rewrites).
// One of khost's own descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is
// written through, as bash does; otherwise a symbolic link is followed to what it names (a
// dangling one: that file is created), as `>` does, and what is there then decides how: a
// regular file, or none, is replaced atomically (WriteFileAtomic: a reader sees the old or the
// new content, and a regular file keeps its mode); anything else (a device such as /dev/null, a
// FIFO) is opened and written as it is, never replaced; a directory is an error naming it.
Status WriteUserFile(const std::string& path, std::string_view bytes);

// Opens the regular file `rel` (relative, as ValidateBundlePath accepts) read-only under `root`:
// every link on the way is resolved and must stay inside the root ("<root>/k/run/bin/a.elf is a
// link to /etc/passwd, outside <root>"); the path, then free of links, is opened by the kernel
// beneath the root with no link followed (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; where
// the kernel lacks openat2, O_NOFOLLOW), so a link swapped in meanwhile is refused too. Anything
// but a regular file (a FIFO, a device) is refused without being read.
Result<ScopedFd> OpenBeneath(const std::string& root, const std::string& rel);

// The whole content of `rel` under `root`, opened by OpenBeneath.
Result<std::string> ReadBeneath(const std::string& root, const std::string& rel);

// The same check for a path to be written: every component of `rel` that exists resolves inside
// `root` (which may not exist yet), or the error names the link that leaves it.
Status CheckBeneath(const std::string& root, const std::string& rel);

// The environment variable `name`, or `fallback` when it is unset or empty.
std::string EnvOr(const char* name, const std::string& fallback);
// $HOME, or /tmp when it is unset or empty: where the XDG directories default to.
std::string HomeDir();

}  // namespace ktune::host
