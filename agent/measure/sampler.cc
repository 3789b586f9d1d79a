#include "agent/measure/sampler.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "agent/measure/perf_counters.h"
#include "agent/measure/perf_event.h"
#include "common/cpu.h"
#include "common/strings.h"

namespace ktune::agent {
namespace {

constexpr uint64_t kSampleType =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
constexpr size_t kDataPages = 16;  // per CPU; small enough for perf_event_mlock_kb as a user

template <typename T>
bool Take(const char*& p, const char* end, T* out) {
  if (static_cast<size_t>(end - p) < sizeof(T)) return false;
  std::memcpy(out, p, sizeof(T));
  p += sizeof(T);
  return true;
}

}  // namespace

std::vector<int> OnlineCpus() {
  std::vector<int> cpus;
  if (auto text = ReadFile("/sys/devices/system/cpu/online"); text.ok()) {
    const std::set<int> online = ParseCpuList(*text).value_or(std::set<int>{});
    cpus.assign(online.begin(), online.end());
  }
  if (cpus.empty()) {
    for (long c = 0; c < ::sysconf(_SC_NPROCESSORS_ONLN); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

Sampler Sampler::Open(const std::vector<EventSpec>& events, pid_t pid,
                      const SampleOptions& options) {
  // The largest ring the mlock limit allows; the watermark goes with its size, so a smaller
  // ring means opening everything again.
  std::string why;
  for (size_t pages : {kDataPages, size_t{4}}) {
    Sampler s;
    why = s.OpenWithRings(events, pid, options, pages);
    if (why.empty()) return s;
  }
  Sampler failed;
  for (const EventSpec& e : events) {
    failed.profile_.events.push_back(e.text);
    failed.profile_.unsupported.push_back(e.text + ": " + why);
  }
  return failed;
}

namespace {

// The attributes of a sampled event: sampling by period or frequency, counting from the
// workload's exec on, over its threads and children, waking the agent at half a ring of
// `ring_bytes`; `mmap` when it reports the workload's mappings.
perf_event_attr SamplingAttr(const EventSpec& event, const SampleOptions& options,
                             size_t ring_bytes, bool mmap) {
  perf_event_attr attr = PerfAttrFor(event);
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.sample_type = kSampleType | (options.callchain ? PERF_SAMPLE_CALLCHAIN : 0);
  attr.exclude_callchain_kernel = options.callchain;
  if (options.period) {
    attr.sample_period = options.period;
  } else {
    attr.freq = 1;
    attr.sample_freq = options.freq;
  }
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(ring_bytes / 2);
  attr.mmap = mmap;
  attr.mmap2 = mmap;
  return attr;
}

}  // namespace

std::string Sampler::OpenWithRings(const std::vector<EventSpec>& events, pid_t pid,
                                   const SampleOptions& options, size_t pages) {
  events_ = events;
  callchain_ = options.callchain;
  for (const EventSpec& e : events) profile_.events.push_back(e.text);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const std::vector<int> cpus = OnlineCpus();
  std::vector<bool> usable(events.size(), true);
  for (int cpu : cpus) {
    int owner = -1;  // the fd whose ring this CPU's samples go to
    for (size_t i = 0; i < events.size(); ++i) {
      if (!usable[i]) continue;
      // One event per CPU reports the mappings.
      auto fd =
          OpenPerfEvent(SamplingAttr(events[i], options, pages * page, owner < 0), pid, cpu, -1);
      if (!fd.ok()) {
        // An event that cannot sample here fails on the first CPU already; failing later, it
        // could sample only part of the workload.
        if (cpu != cpus.front()) {
          return "cannot open " + events[i].text + " on CPU " + std::to_string(cpu) + ": " +
                 fd.status().message();
        }
        usable[i] = false;
        profile_.unsupported.push_back(events[i].text + ": " + fd.status().message());
        continue;
      }
      if (const Result<uint64_t> id = PerfEventId(fd->get()); id.ok()) {
        event_of_id_[*id] = static_cast<uint32_t>(i);
      }
      std::string why =
          owner < 0 ? MapRing(fd->get(), cpu, pages, page) : ShareRing(fd->get(), cpu, owner);
      if (!why.empty()) return why;
      if (owner < 0) owner = fd->get();
      fds_.push_back({i, std::move(fd).value()});
    }
  }
  return "";
}

std::string Sampler::MapRing(int fd, int cpu, size_t pages, size_t page) {
  Result<PerfRing> ring = PerfRing::Map(fd, pages, page);
  if (!ring.ok()) {
    return "cannot map a ring buffer on CPU " + std::to_string(cpu) + ": " +
           ring.status().message();
  }
  rings_.push_back(std::move(ring).value());
  ring_fds_.push_back(fd);
  return "";
}

std::string Sampler::ShareRing(int fd, int cpu, int owner) {
  if (const Status sent = SendPerfOutputTo(fd, owner); !sent.ok()) {
    return "cannot share CPU " + std::to_string(cpu) + "'s ring buffer: " + sent.message();
  }
  return "";
}

std::vector<int> Sampler::poll_fds() const {
  return ring_fds_;
}

void Sampler::Drain() {
  for (PerfRing& r : rings_) {
    r.ReadRecords([this](const perf_event_header& header, const char* body, size_t body_bytes) {
      Parse(body, body_bytes, header.type);
    });
  }
}

void Sampler::Parse(const char* p, size_t size, uint32_t type) {
  const char* end = p + size;
  if (type == PERF_RECORD_LOST) {
    uint64_t id, lost;
    if (Take(p, end, &id) && Take(p, end, &lost)) profile_.lost += lost;
  } else if (type == PERF_RECORD_MMAP2) {
    ParseMmap2(p, end);
  } else if (type == PERF_RECORD_SAMPLE) {
    ParseSample(p, end);
  }
}

void Sampler::ParseMmap2(const char* p, const char* end) {
  uint32_t pid, tid, maj, min, prot, flags;
  uint64_t addr, len, pgoff, ino, ino_generation;
  if (!Take(p, end, &pid) || !Take(p, end, &tid) || !Take(p, end, &addr) || !Take(p, end, &len) ||
      !Take(p, end, &pgoff) || !Take(p, end, &maj) || !Take(p, end, &min) || !Take(p, end, &ino) ||
      !Take(p, end, &ino_generation) || !Take(p, end, &prot) || !Take(p, end, &flags)) {
    return;
  }
  if (!(prot & PROT_EXEC)) return;
  const std::string file(p, strnlen(p, static_cast<size_t>(end - p)));
  for (const Mapping& m : profile_.mappings) {
    if (m.start == addr && m.len == len && m.file == file) return;
  }
  profile_.mappings.push_back({addr, len, pgoff, file});
}

void Sampler::ParseSample(const char* p, const char* end) {
  uint64_t id, ip, period;
  uint32_t pid, tid;
  if (!Take(p, end, &id) || !Take(p, end, &ip) || !Take(p, end, &pid) || !Take(p, end, &tid) ||
      !Take(p, end, &period)) {
    return;
  }
  auto it = event_of_id_.find(id);
  if (it == event_of_id_.end()) return;
  const uint32_t event = it->second;
  ++profile_.samples;
  auto& hit = hits_[{event, ip}];
  ++hit.first;
  hit.second += period;
  if (!callchain_) return;
  uint64_t nr;
  if (!Take(p, end, &nr) || nr > static_cast<uint64_t>(end - p) / 8) return;
  std::vector<uint64_t> ips;
  for (uint64_t k = 0; k < nr; ++k) {
    uint64_t frame = 0;
    if (!Take(p, end, &frame)) break;
    if (frame < PERF_CONTEXT_MAX) ips.push_back(frame);  // context markers are not frames
  }
  auto& chain = chains_[{event, ips}];
  ++chain.first;
  chain.second += period;
}

std::vector<MeasuredValue> Sampler::ReadCounts() const {
  std::vector<MeasuredValue> out;
  for (const EventSpec& e : events_) {
    out.push_back({e.text, 0, e.def.unit, 0, 0, ValueStatus::kNotSupported});
  }
  for (const Opened& o : fds_) {
    uint64_t buf[3];
    if (::read(o.fd.get(), buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) continue;
    // Every CPU's event is enabled for the task's whole life and runs while the task is on that
    // CPU: the largest enabled time is the task's, the running times add up.
    MeasuredValue& v = out[o.event];
    v.value += static_cast<double>(buf[0]);
    v.enabled_ns = std::max(v.enabled_ns, buf[1]);
    v.running_ns = std::min(v.enabled_ns, v.running_ns + buf[2]);
    v.status = v.running_ns == 0 ? ValueStatus::kNotCounted : ValueStatus::kOk;
  }
  return out;
}

Profile Sampler::TakeProfile() {
  Drain();
  Profile p = std::move(profile_);
  for (const auto& [key, value] : hits_) {
    p.hits.push_back({key.first, key.second, value.first, value.second});
  }
  for (const auto& [key, value] : chains_) {
    p.chains.push_back({key.first, key.second, value.first, value.second});
  }
  hits_.clear();
  chains_.clear();
  auto heaviest = [](const auto& a, const auto& b) { return a.period > b.period; };
  if (p.hits.size() > kMaxHits) {
    std::sort(p.hits.begin(), p.hits.end(), heaviest);
    for (size_t k = kMaxHits; k < p.hits.size(); ++k) p.truncated += p.hits[k].count;
    p.hits.resize(kMaxHits);
  }
  if (p.chains.size() > kMaxChains) {
    std::sort(p.chains.begin(), p.chains.end(), heaviest);
    p.chains.resize(kMaxChains);  // their samples are still in the hits
  }
  return p;
}

}  // namespace ktune::agent
