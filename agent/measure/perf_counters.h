// Hardware and software counters through perf_event_open(2), in layers:
//   PerfAttrFor     config: one catalog event (common/events.h) -> perf_event_attr
//   OpenPerfEvent   the system calls (agent/measure/perf_event.h, which agent/measure/sampler.h
//                   uses too: the one owner of perf_event_open and the perf ioctls)
//   CounterGroup    opens a set of events on one process as perf groups and reads them
//
// Events are opened on a process that has not exec'd yet, disabled, with enable_on_exec and
// inherit: they count from the exec of the workload on, over all its threads and children.
// Software events share one group (they always fit). The others either form one group (a pass
// planned to fit the counters: all of them count the whole run, or none) or a group each (perf
// stat's way: the kernel multiplexes them, and their values are scaled by enabled/running and
// marked "scaled"). A pass's value that still ran only part of the time (another perf user took
// a counter) is "partly counted", unscaled. An event that fails to open is "not supported" (with
// the reason) and the rest go on; a value whose time_running is 0 is "not counted". Every value
// keeps its enabled and running times.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "agent/measure/perf_event.h"
#include "common/events.h"
#include "common/fs.h"
#include "common/results.h"

namespace ktune::agent {

perf_event_attr PerfAttrFor(const EventSpec& spec);

// A software event (PERF_TYPE_SOFTWARE): it needs no hardware counter, so it always fits, in a
// group of its own (CounterGroup) and in the first pass (agent/measure/passes.h).
bool IsSoftwareEvent(const EventSpec& spec);

class CounterGroup {
 public:
  enum class Grouping {
    kTogether,  // the counted events in one group: a pass that fits
    kSeparate,  // each counted event alone, multiplexed and scaled
  };

  // Opens `events` on `pid`. Never fails as a whole: each event either opens or is recorded as
  // not supported.
  static CounterGroup Open(const std::vector<EventSpec>& events, pid_t pid, Grouping grouping);

  CounterGroup(CounterGroup&&) = default;
  CounterGroup& operator=(CounterGroup&&) = default;

  // One value per event, in the order given to Open.
  std::vector<MeasuredValue> Read() const;

  // Why each event that did not open failed ("" for those that opened), in Open's order.
  const std::vector<std::string>& open_errors() const { return errors_; }

 private:
  CounterGroup() = default;

  struct Member {
    size_t event_index;
    uint64_t id;  // PERF_EVENT_IOC_ID, to match group-read entries
  };
  struct Group {
    ScopedFd leader;
    std::vector<ScopedFd> members;  // followers, kept open for the group's life
    std::vector<Member> ids;        // leader first
  };

  std::vector<EventSpec> events_;
  std::vector<std::string> errors_;
  bool scale_ = false;
  std::vector<Group> groups_;
};

// Tries to open `spec` on the calling process and closes it again; "" when it opens, else the
// reason. For the agent's capability report.
std::string ProbeEvent(const EventSpec& spec);

// True when `events`, opened as one group on the calling thread, all count for the whole of a
// short busy loop (time_running == time_enabled > 0): they fit the PMU together. An event that
// does not open makes it false.
bool CountTogether(const std::vector<EventSpec>& events);

}  // namespace ktune::agent
