#include "agent/measure/perf_event.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace ktune::agent {
namespace {

int SysPerfEventOpen(perf_event_attr* attr, pid_t pid, int cpu, int group_fd) {
  return static_cast<int>(
      ::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC));
}

// The error of the system call that just failed: strerror's text.
Status LastError() {
  return Status(ErrorCode::kIo, std::strerror(errno));
}

}  // namespace

Result<ScopedFd> OpenPerfEvent(perf_event_attr attr, pid_t pid, int cpu, int group_fd) {
  int fd = SysPerfEventOpen(&attr, pid, cpu, group_fd);
  // Only an event that also counts user space falls back; a kernel-only one (:k) would count
  // nothing.
  if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel && !attr.exclude_user) {
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    fd = SysPerfEventOpen(&attr, pid, cpu, group_fd);
  }
  if (fd < 0) return Status(ErrorCode::kUnsupported, std::strerror(errno));
  return ScopedFd(fd);
}

Result<uint64_t> PerfEventId(int fd) {
  uint64_t id = 0;
  if (::ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) return LastError();
  return id;
}

Status EnablePerfGroup(int leader) {
  if (::ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) return LastError();
  return Status::Ok();
}

Status DisablePerfGroup(int leader) {
  if (::ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) != 0) return LastError();
  return Status::Ok();
}

Status SendPerfOutputTo(int fd, int owner) {
  if (::ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) != 0) return LastError();
  return Status::Ok();
}

Result<PerfRing> PerfRing::Map(int fd, size_t data_pages, size_t page_bytes) {
  const size_t mapped_bytes = (1 + data_pages) * page_bytes;
  void* base = ::mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return LastError();
  return PerfRing(static_cast<char*>(base), mapped_bytes, data_pages * page_bytes);
}

PerfRing::PerfRing(PerfRing&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      data_bytes_(std::exchange(other.data_bytes_, 0)) {}

PerfRing& PerfRing::operator=(PerfRing&& other) noexcept {
  if (this != &other) {
    Unmap();
    base_ = std::exchange(other.base_, nullptr);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    data_bytes_ = std::exchange(other.data_bytes_, 0);
  }
  return *this;
}

PerfRing::~PerfRing() {
  Unmap();
}

void PerfRing::Unmap() {
  if (base_) ::munmap(base_, mapped_bytes_);
  base_ = nullptr;
}

const char* PerfRing::data() const {
  const perf_event_mmap_page* m = meta();
  return base_ + (m->data_offset ? m->data_offset : mapped_bytes_ - data_bytes_);
}

void PerfRing::ReadRecords(const RecordFn& on_record) {
  perf_event_mmap_page* m = meta();
  const char* ring = data();
  const uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = m->data_tail;
  std::vector<char> record;
  // A record may wrap around the end of the ring: copied out first.
  auto copy = [&](uint64_t from, size_t n, char* to) {
    for (size_t k = 0; k < n; ++k) to[k] = ring[(from + k) % data_bytes_];
  };
  while (tail < head) {
    perf_event_header header;
    copy(tail, sizeof header, reinterpret_cast<char*>(&header));
    if (header.size < sizeof header || header.size > data_bytes_ || tail + header.size > head) {
      break;
    }
    record.resize(header.size);
    copy(tail, header.size, record.data());
    on_record(header, record.data() + sizeof header, header.size - sizeof header);
    tail += header.size;
  }
  __atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
}

}  // namespace ktune::agent
