// Sampling through perf_event_open's ring buffers, as perf record samples one workload: every
// sampled event is opened on the workload's pid once per online CPU, with inherit (the kernel
// does not mmap an inherited per-task event, hence per CPU); on each CPU the first event owns a
// ring buffer and the others write into it (PERF_EVENT_IOC_SET_OUTPUT). Samples carry the event
// id, the IP, the period and, if asked, the user callchain; mmap records give the workload's
// executable mappings, which place the IPs of position-independent executables. The buffers are
// drained while the workload runs (when one passes half full) and after it ends, into a Profile
// (common/profile.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/measure/perf_event.h"
#include "common/events.h"
#include "common/fs.h"
#include "common/profile.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune::agent {

struct SampleOptions {
  uint64_t period = 0;  // a sample every `period` events, or else
  uint32_t freq = 0;    // about `freq` samples per second
  bool callchain = false;
};

class Sampler {
 public:
  // Opens `events` on `pid`, which has not exec'd yet. Never fails as a whole: an event that
  // cannot sample here is listed in Profile::unsupported and the others go on.
  static Sampler Open(const std::vector<EventSpec>& events, pid_t pid,
                      const SampleOptions& options);
  Sampler(Sampler&&) = default;
  Sampler& operator=(Sampler&&) = default;

  // The fds that become readable when a ring buffer is half full.
  std::vector<int> poll_fds() const;
  // Reads every record available now.
  void Drain();
  // The events' counts over the run, one value per event: summed over the CPUs, with the largest
  // enabled time and the running times added up (at most the enabled time).
  std::vector<MeasuredValue> ReadCounts() const;
  // Drains what is left and returns the aggregated profile: at most kMaxHits (event, IP) entries
  // and kMaxChains callchains, the heaviest, so that it fits a protocol frame; the samples left
  // out are counted in Profile::truncated.
  Profile TakeProfile();
  static constexpr size_t kMaxHits = 100000;
  static constexpr size_t kMaxChains = 2000;

 private:
  Sampler() = default;
  struct Opened {
    size_t event;
    ScopedFd fd;
  };
  // Opens every event on every CPU with rings of `pages` data pages; "" on success, else why
  // the rings could not be set up.
  std::string OpenWithRings(const std::vector<EventSpec>& events, pid_t pid,
                            const SampleOptions& options, size_t pages);
  // Maps the ring buffer of `fd` (the first sampled event on `cpu`), "" on success, else why not.
  std::string MapRing(int fd, int cpu, size_t pages, size_t page);
  // Sends the samples of `fd` to the ring of `owner`, on the same CPU; "" or why not.
  static std::string ShareRing(int fd, int cpu, int owner);
  void Parse(const char* record, size_t size, uint32_t type);
  void ParseMmap2(const char* p, const char* end);
  void ParseSample(const char* p, const char* end);

  std::vector<EventSpec> events_;
  bool callchain_ = false;
  std::vector<Opened> fds_;
  std::vector<PerfRing> rings_;
  std::vector<int> ring_fds_;
  std::map<uint64_t, uint32_t> event_of_id_;
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint64_t>> hits_;
  std::map<std::pair<uint32_t, std::vector<uint64_t>>, std::pair<uint64_t, uint64_t>> chains_;
  Profile profile_;
};

// The online CPUs, from /sys/devices/system/cpu/online ("0-3,6").
std::vector<int> OnlineCpus();

}  // namespace ktune::agent
