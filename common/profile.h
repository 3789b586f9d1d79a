// A sampling profile: what the agent's sampler (agent/measure/sampler.h) collects for one
// repetition and khost symbolizes (host/util/elf_symbols.h). Samples are aggregated by (event, IP)
// and (event, callchain).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

struct SampleHit {
  uint32_t event = 0;  // index into Profile::events
  uint64_t ip = 0;
  uint64_t count = 0;   // samples
  uint64_t period = 0;  // sum of their periods: the events they stand for
};

struct SampleChain {
  uint32_t event = 0;
  std::vector<uint64_t> ips;  // innermost first
  uint64_t count = 0;
  uint64_t period = 0;
};

// An executable mapping of the workload: IPs inside [start, start + len) are at file offset
// ip - start + pgoff of `file`.
struct Mapping {
  uint64_t start = 0, len = 0, pgoff = 0;
  std::string file;
};

struct Profile {
  std::vector<std::string> events;       // as the user wrote them
  std::vector<std::string> unsupported;  // "event: reason" for those that could not sample
  std::vector<SampleHit> hits;
  std::vector<SampleChain> chains;
  std::vector<Mapping> mappings;
  uint64_t samples = 0;
  uint64_t lost = 0;       // samples the kernel dropped (ring buffer full)
  uint64_t truncated = 0;  // samples of the lightest IPs and callchains, left out to bound its size
};

}  // namespace ktune
