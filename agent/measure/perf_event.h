// The one owner of perf_event_open(2)'s system calls in ktune: opening an event, the perf ioctls
// (an event's id, enabling and disabling a group, sending samples to another event's ring) and
// mapping an event's ring buffer. What to open and how to read it belongs to the callers:
// agent/measure/perf_counters.h counts, agent/measure/sampler.h samples. Every fd is
// close-on-exec and owned by a ScopedFd; every error's message is strerror's text, for the caller
// to say what failed.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "common/fs.h"
#include "common/status.h"

namespace ktune::agent {

// perf_event_open(attr, pid, cpu, group_fd) with a close-on-exec fd. On EACCES/EPERM for an
// event that counts user space and the kernel, retries counting user space only, as perf does
// when perf_event_paranoid forbids kernel profiling (khost run says so when it applies). Errors
// are kUnsupported.
Result<ScopedFd> OpenPerfEvent(perf_event_attr attr, pid_t pid, int cpu, int group_fd);

// PERF_EVENT_IOC_ID: the id of the event of `fd`, as group reads and samples name it.
Result<uint64_t> PerfEventId(int fd);

// PERF_EVENT_IOC_ENABLE / PERF_EVENT_IOC_DISABLE of the whole group led by `leader`.
Status EnablePerfGroup(int leader);
Status DisablePerfGroup(int leader);

// PERF_EVENT_IOC_SET_OUTPUT: the samples of `fd` go to the ring buffer of `owner`, an event on the
// same CPU.
Status SendPerfOutputTo(int fd, int owner);

// The ring buffer of an event, mapped shared and writable (so that the reader can move its tail):
// one metadata page, then `data_pages` pages of records. Unmapped when destroyed.
class PerfRing {
 public:
  static Result<PerfRing> Map(int fd, size_t data_pages, size_t page_bytes);
  PerfRing(PerfRing&& other) noexcept;
  PerfRing& operator=(PerfRing&& other) noexcept;
  PerfRing(const PerfRing&) = delete;
  PerfRing& operator=(const PerfRing&) = delete;
  ~PerfRing();

  // The metadata page (data_head, data_tail, data_offset...).
  perf_event_mmap_page* meta() const { return reinterpret_cast<perf_event_mmap_page*>(base_); }
  // The records: where the metadata page says (data_offset), or after it on older kernels.
  const char* data() const;
  size_t data_bytes() const { return data_bytes_; }

  // Hands every record written since the last call to `on_record` (its type and misc, and its body
  // after the header, copied out when it wraps around the ring's end), then gives the space back
  // to the kernel. A torn or corrupt record ends the read: what follows it cannot be trusted.
  using RecordFn =
      std::function<void(const perf_event_header& header, const char* body, size_t body_bytes)>;
  void ReadRecords(const RecordFn& on_record);

 private:
  PerfRing(char* base, size_t mapped_bytes, size_t data_bytes)
      : base_(base), mapped_bytes_(mapped_bytes), data_bytes_(data_bytes) {}
  void Unmap();

  char* base_ = nullptr;
  size_t mapped_bytes_ = 0;
  size_t data_bytes_ = 0;
};

}  // namespace ktune::agent
