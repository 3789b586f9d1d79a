#include "agent/measure/affinity.h"

#include <dirent.h>

#include <cstdlib>
#include <string>

namespace ktune::agent {
namespace {

// The ids of this process's threads.
std::vector<pid_t> Threads() {
  std::vector<pid_t> out;
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) return out;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') out.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  ::closedir(dir);
  return out;
}

}  // namespace

PinThread::PinThread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE || ::sched_getaffinity(0, sizeof before_, &before_) != 0) {
    return;
  }
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  pinned_ = ::sched_setaffinity(0, sizeof only, &only) == 0;
}

PinThread::~PinThread() {
  if (pinned_) ::sched_setaffinity(0, sizeof before_, &before_);
}

KeepThreadsOff::KeepThreadsOff(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  for (pid_t tid : Threads()) {
    cpu_set_t mask;
    if (::sched_getaffinity(tid, sizeof mask, &mask) != 0 || !CPU_ISSET(cpu, &mask)) continue;
    cpu_set_t off = mask;
    CPU_CLR(cpu, &off);
    if (CPU_COUNT(&off) == 0) continue;
    if (::sched_setaffinity(tid, sizeof off, &off) == 0) before_.emplace_back(tid, mask);
  }
}

KeepThreadsOff::~KeepThreadsOff() {
  // A thread that ended meanwhile fails with ESRCH; the others get their masks back.
  for (const auto& [tid, mask] : before_) ::sched_setaffinity(tid, sizeof mask, &mask);
}

}  // namespace ktune::agent
