#include "agent/perf_counters.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ktune {
namespace {

constexpr uint64_t kReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

int SysPerfEventOpen(perf_event_attr* attr, pid_t pid, int cpu, int group_fd) {
  return static_cast<int>(
      ::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC));
}

// Opens one event; on EACCES/EPERM for an event that counts the kernel, retries counting user
// space only, as perf does when perf_event_paranoid forbids kernel profiling.
Result<ScopedFd> OpenOne(perf_event_attr attr, pid_t pid, int group_fd) {
  int fd = SysPerfEventOpen(&attr, pid, -1, group_fd);
  if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    fd = SysPerfEventOpen(&attr, pid, -1, group_fd);
  }
  if (fd < 0) return Status(ErrorCode::kUnsupported, std::strerror(errno));
  return ScopedFd(fd);
}

bool IsSoftware(const EventSpec& e) {
  return e.def.type == PERF_TYPE_SOFTWARE;
}

}  // namespace

perf_event_attr PerfAttrFor(const EventSpec& spec) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = spec.def.type;
  attr.config = spec.def.config;
  attr.read_format = kReadFormat;
  attr.inherit = 1;
  attr.exclude_user = spec.exclude_user;
  attr.exclude_kernel = spec.exclude_kernel;
  attr.exclude_hv = spec.exclude_hv;
  return attr;
}

CounterGroup CounterGroup::Open(const std::vector<EventSpec>& events, pid_t pid) {
  CounterGroup g;
  g.events_ = events;
  g.errors_.assign(events.size(), "");
  Group software;
  // Opens event i as a member of `group`, or as its leader when it has none yet.
  auto add = [&](Group& group, size_t i) {
    perf_event_attr attr = PerfAttrFor(events[i]);
    const bool leader = !group.leader.valid();
    attr.disabled = leader;
    attr.enable_on_exec = leader;
    auto fd = OpenOne(attr, pid, leader ? -1 : group.leader.get());
    if (!fd.ok()) {
      g.errors_[i] = fd.status().message();
      return;
    }
    uint64_t id = 0;
    if (::ioctl(fd->get(), PERF_EVENT_IOC_ID, &id) != 0) {
      g.errors_[i] = std::string("PERF_EVENT_IOC_ID: ") + std::strerror(errno);
      return;
    }
    group.ids.push_back({i, id});
    if (leader) {
      group.leader = std::move(fd).value();
    } else {
      group.members.push_back(std::move(fd).value());
    }
  };
  for (size_t i = 0; i < events.size(); ++i) {
    if (IsSoftware(events[i])) {
      add(software, i);
      continue;
    }
    Group alone;
    add(alone, i);
    if (alone.leader.valid()) g.groups_.push_back(std::move(alone));
  }
  if (software.leader.valid()) g.groups_.push_back(std::move(software));
  return g;
}

std::vector<MeasuredValue> CounterGroup::Read() const {
  std::vector<MeasuredValue> out(events_.size());
  for (size_t i = 0; i < events_.size(); ++i) {
    out[i].name = events_[i].text;
    out[i].unit = events_[i].def.unit;
    out[i].status = ValueStatus::kNotSupported;
  }
  for (const Group& group : groups_) {
    // Layout of a PERF_FORMAT_GROUP read: nr, time_enabled, time_running, {value, id} * nr.
    std::vector<uint64_t> buf(3 + 2 * group.ids.size());
    const ssize_t want = static_cast<ssize_t>(buf.size() * sizeof(uint64_t));
    const ssize_t n = ::read(group.leader.get(), buf.data(), static_cast<size_t>(want));
    if (n != want || buf[0] != group.ids.size()) {
      for (const Member& m : group.ids) out[m.event_index].status = ValueStatus::kNotCounted;
      continue;
    }
    const uint64_t enabled = buf[1], running = buf[2];
    for (uint64_t k = 0; k < buf[0]; ++k) {
      const uint64_t value = buf[3 + 2 * k], id = buf[4 + 2 * k];
      for (const Member& m : group.ids) {
        if (m.id != id) continue;
        MeasuredValue& v = out[m.event_index];
        v.enabled_ns = enabled;
        v.running_ns = running;
        v.status = running == 0 ? ValueStatus::kNotCounted : ValueStatus::kOk;
        v.value = running == 0 ? 0 : static_cast<double>(value);
      }
    }
  }
  return out;
}

std::string ProbeEvent(const EventSpec& spec) {
  perf_event_attr attr = PerfAttrFor(spec);
  attr.disabled = 1;
  attr.inherit = 0;
  auto fd = OpenOne(attr, 0, -1);
  return fd.ok() ? "" : fd.status().message();
}

}  // namespace ktune
