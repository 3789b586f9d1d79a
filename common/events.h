// The event catalog: names a user may write in --events and the perf_event_attr type/config each
// stands for. This file holds perf's generic events, valid on every architecture: hardware
// (cycles, instructions, ...), software (task-clock, page-faults, ...) and hardware-cache events
// (L1-dcache-load-misses, LLC-loads, ...), named exactly as `perf list` names them, built from
// the constants of <linux/perf_event.h>.
//
// Event syntax (perf's): NAME[:MODS] or rHEX[:MODS], where MODS is any of u (user), k (kernel),
// h (hypervisor); naming some privilege levels excludes the others.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune {

struct EventDef {
  std::string name;  // canonical perf name
  uint32_t type = 0;
  uint64_t config = 0;
  std::string unit;  // "ns" for the clocks, "" for counts
  std::string description;
};

// Every generic event, each under its canonical name.
const std::vector<EventDef>& GenericEvents();

struct EventSpec {
  std::string text;  // as the user wrote it, e.g. "cycles:u"; the value's name in results
  EventDef def;
  bool exclude_user = false;
  bool exclude_kernel = false;
  bool exclude_hv = false;
};

// Parses one event in perf's syntax and resolves it against the generic catalog (aliases such as
// "cpu-cycles" or "faults" included). Unknown names are an error naming the nearest entries.
Result<EventSpec> ParseEventSpec(std::string_view text);

// Splits "a,b:u,c" into event texts; empty items are an error.
Result<std::vector<std::string>> SplitEventList(std::string_view list);

// perf stat's default event set.
std::vector<std::string> DefaultEvents();

}  // namespace ktune
