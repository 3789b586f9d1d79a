// Where and as whom kernels run. Each run gets a working directory of its own,
// <store>/work/<run_id>/, holding a link to each top-level entry of the bundle's read-only tree
// (so the relative paths of the seed's layout, <kernel>/run/..., resolve as on the board) and
// room for whatever the kernel writes; it is removed when the run ends. When agentd runs as root,
// kernels run as an unprivileged user (--run-as, default nobody) that owns only that directory;
// counters are still opened by the agent.
#pragma once

#include <optional>
#include <string>

#include "agent/measure/workload.h"
#include "common/status.h"

namespace ktune::agent {

struct Sandbox {
  std::optional<WorkloadUser> user;  // set when agentd is root
  WorkloadLimits limits;
};

// The user named `name` in /etc/passwd, with its primary group; a number not there is taken as
// uid and gid.
Result<WorkloadUser> LookupUser(const std::string& name);

// Fails, naming the first directory at fault, unless `user` may search every directory from
// the root down to `path` and read `path` itself (else its kernels could not reach the store).
Status CheckReachable(const WorkloadUser& user, const std::string& path);

// Creates `work_dir` (owned by `user` when given, mode 0700) with links to the entries of
// `tree_dir`. An existing one (a run resumed after the agent died) is made afresh.
Status MakeWorkDir(const std::string& work_dir, const std::string& tree_dir,
                   const std::optional<WorkloadUser>& user);

}  // namespace ktune::agent
