#include "agent/measure/perf_counters.h"

#include <unistd.h>

#include <time.h>

#include <cstring>

namespace ktune::agent {
namespace {

constexpr uint64_t kReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                                 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

}  // namespace

bool IsSoftwareEvent(const EventSpec& spec) {
  return spec.def.type == PERF_TYPE_SOFTWARE;
}

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

CounterGroup CounterGroup::Open(const std::vector<EventSpec>& events, pid_t pid,
                                Grouping grouping) {
  CounterGroup g;
  g.events_ = events;
  g.errors_.assign(events.size(), "");
  g.scale_ = grouping == Grouping::kSeparate;
  Group software, counted;
  // Opens event i as a member of `group`, or as its leader when it has none yet.
  auto add = [&](Group& group, size_t i) {
    perf_event_attr attr = PerfAttrFor(events[i]);
    const bool leader = !group.leader.valid();
    attr.disabled = leader;
    attr.enable_on_exec = leader;
    auto fd = OpenPerfEvent(attr, pid, -1, leader ? -1 : group.leader.get());
    if (!fd.ok()) {
      g.errors_[i] = fd.status().message();
      return;
    }
    const Result<uint64_t> id = PerfEventId(fd->get());
    if (!id.ok()) {
      g.errors_[i] = "PERF_EVENT_IOC_ID: " + id.status().message();
      return;
    }
    group.ids.push_back({i, *id});
    if (leader) {
      group.leader = std::move(fd).value();
    } else {
      group.members.push_back(std::move(fd).value());
    }
  };
  for (size_t i = 0; i < events.size(); ++i) {
    if (IsSoftwareEvent(events[i])) {
      add(software, i);
    } else if (grouping == Grouping::kTogether) {
      add(counted, i);
    } else {
      Group alone;
      add(alone, i);
      if (alone.leader.valid()) g.groups_.push_back(std::move(alone));
    }
  }
  if (counted.leader.valid()) g.groups_.push_back(std::move(counted));
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
        if (running > 0 && running < enabled) {
          if (scale_) {
            v.value *= static_cast<double>(enabled) / static_cast<double>(running);
            v.status = ValueStatus::kScaled;
          } else {
            v.status = ValueStatus::kPartial;  // a pass that lost its counters for a while
          }
        }
      }
    }
  }
  return out;
}

bool CountTogether(const std::vector<EventSpec>& events) {
  if (events.empty()) return true;
  std::vector<ScopedFd> fds;
  for (const EventSpec& e : events) {
    perf_event_attr attr = PerfAttrFor(e);
    attr.inherit = 0;
    attr.disabled = fds.empty();
    auto fd = OpenPerfEvent(attr, 0, -1, fds.empty() ? -1 : fds.front().get());
    if (!fd.ok()) return false;
    fds.push_back(std::move(fd).value());
  }
  const int leader = fds.front().get();
  if (!EnablePerfGroup(leader).ok()) return false;
  // A short busy loop on this thread: 2 ms of its CPU time, long enough for the kernel to
  // rotate groups if they do not fit.
  timespec start, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  volatile uint64_t sink = 0;
  do {
    for (int i = 0; i < 10000; ++i) sink = sink + static_cast<uint64_t>(i);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 2000000L);
  (void)DisablePerfGroup(leader);  // the read below tells whether they counted
  std::vector<uint64_t> buf(3 + 2 * events.size());
  const ssize_t want = static_cast<ssize_t>(buf.size() * sizeof(uint64_t));
  if (::read(leader, buf.data(), static_cast<size_t>(want)) != want) return false;
  return buf[0] == events.size() && buf[2] > 0 && buf[2] == buf[1];
}

std::string ProbeEvent(const EventSpec& spec) {
  perf_event_attr attr = PerfAttrFor(spec);
  attr.disabled = 1;
  attr.inherit = 0;
  auto fd = OpenPerfEvent(attr, 0, -1, -1);
  return fd.ok() ? "" : fd.status().message();
}

}  // namespace ktune::agent
