#include "agent/measure/sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::agent {
namespace fs = std::filesystem;

Result<WorkloadUser> LookupUser(const std::string& name) {
  // /etc/passwd read directly, not through getpwnam: agentd is static, and glibc's NSS would
  // need the shared libraries of its own build at run time (and add 100 KB to the binary).
  if (auto passwd = ReadFile("/etc/passwd"); passwd.ok()) {
    for (std::string_view line : Split(*passwd, '\n')) {
      const std::vector<std::string_view> f = Split(line, ':');      // name:x:uid:gid:...
      if (f.size() < 4 || (f[0] != name && f[2] != name)) continue;  // a name, or a uid
      auto uid = ParseInt(f[2]), gid = ParseInt(f[3]);
      if (!uid.ok() || !gid.ok() || *uid < 0 || *gid < 0) {
        return InvalidArgument("/etc/passwd: bad entry for " + name);
      }
      if (*uid == 0) return InvalidArgument("--run-as " + name + " is root: name another user");
      return WorkloadUser{static_cast<uid_t>(*uid), static_cast<gid_t>(*gid)};
    }
  }
  // A number needs no passwd entry (a board's initramfs has none): that uid, and gid alike.
  if (auto uid = ParseInt(name); uid.ok()) {
    if (*uid <= 0) return InvalidArgument("--run-as " + name + ": name a user other than root");
    return WorkloadUser{static_cast<uid_t>(*uid), static_cast<gid_t>(*uid)};
  }
  return NotFound("no user " + name + " in /etc/passwd (a uid will do)");
}

Status CheckReachable(const WorkloadUser& user, const std::string& path) {
  auto allows = [&](const struct stat& st, mode_t owner, mode_t group, mode_t other) {
    if (st.st_uid == user.uid) return (st.st_mode & owner) != 0;
    if (st.st_gid == user.gid) return (st.st_mode & group) != 0;
    return (st.st_mode & other) != 0;
  };
  const fs::path abs = fs::absolute(path).lexically_normal();
  fs::path at;
  for (const fs::path& part : abs) {
    at /= part;
    struct stat st;
    if (::stat(at.c_str(), &st) != 0) return ErrnoError("stat " + at.string(), errno);
    const bool last = at == abs;
    if (!allows(st, S_IXUSR, S_IXGRP, S_IXOTH) ||
        (last && !allows(st, S_IRUSR, S_IRGRP, S_IROTH))) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return InvalidArgument("kernels run as uid " + std::to_string(user.uid) + " cannot reach " +
                             at.string() + " (mode " + mode +
                             "): let others search it (chmod o+x), or keep the store elsewhere");
    }
  }
  return Status::Ok();
}

Status MakeWorkDir(const std::string& work_dir, const std::string& tree_dir,
                   const std::optional<WorkloadUser>& user) {
  std::error_code ec;
  if (fs::exists(work_dir, ec)) RemoveTree(work_dir);
  if (::mkdir(work_dir.c_str(), 0700) != 0) return ErrnoError("mkdir " + work_dir, errno);
  for (const auto& entry : fs::directory_iterator(tree_dir, ec)) {
    const fs::path link = fs::path(work_dir) / entry.path().filename();
    fs::create_symlink(entry.path(), link, ec);
    if (ec) return IoError("link " + link.string() + ": " + ec.message());
  }
  if (ec) return IoError("list " + tree_dir + ": " + ec.message());
  if (user && ::chown(work_dir.c_str(), user->uid, user->gid) != 0) {
    return ErrnoError("chown " + work_dir, errno);
  }
  return Status::Ok();
}

}  // namespace ktune::agent
