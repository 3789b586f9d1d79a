#include "agent/measure/run_clock.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <cstring>
#include <ctime>

namespace ktune::agent {
namespace {

// Two pages of records: an exec and an exit take about 100 bytes, a FORK record 40.
constexpr size_t kDataPages = 2;

perf_event_attr TrackingAttr(size_t ring_bytes) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.disabled = 1;
  attr.enable_on_exec = 1;  // the exec's own COMM record is the first one written
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.sample_id_all = 1;
  attr.sample_type = PERF_SAMPLE_TIME;  // every record ends with its time
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(ring_bytes / 2);
  // use_clockid came with Linux 4.1; a RISC-V board counts with the SBI PMU driver of 5.18 on.
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  return attr;
}

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

Result<RunClock> RunClock::Open(pid_t pid) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenPerfEvent(TrackingAttr(kDataPages * page), pid, -1, -1));
  Result<PerfRing> ring = PerfRing::Map(fd.get(), kDataPages, page);
  if (!ring.ok()) return Status(ErrorCode::kUnsupported, ring.status().message());
  return RunClock(pid, std::move(fd), std::move(ring).value());
}

void RunClock::Drain() {
  ring_.ReadRecords([this](const perf_event_header& header, const char* body, size_t bytes) {
    // COMM: pid, tid, the name; EXIT: pid, ppid, tid, ptid, time. Both end with the sample_id's
    // time. Only the workload's first process counts (pid and tid its pid).
    const bool exec = header.type == PERF_RECORD_COMM && (header.misc & PERF_RECORD_MISC_COMM_EXEC);
    const bool exit = header.type == PERF_RECORD_EXIT;
    if ((!exec && !exit) || bytes < 24) return;
    const uint32_t pid = Load<uint32_t>(body), tid = Load<uint32_t>(body + (exec ? 4 : 8));
    if (pid != static_cast<uint32_t>(pid_) || tid != pid) return;
    const uint64_t time_ns = Load<uint64_t>(body + bytes - 8);
    if (exec && !exec_ns_) exec_ns_ = time_ns;
    if (exit) exit_ns_ = time_ns;
  });
}

std::optional<uint64_t> RunClock::wall_ns() const {
  if (!exec_ns_ || !exit_ns_ || *exit_ns_ < *exec_ns_) return std::nullopt;
  return *exit_ns_ - *exec_ns_;
}

}  // namespace ktune::agent
