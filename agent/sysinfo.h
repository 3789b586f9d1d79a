// What the agent tells a host about its machine: architecture and CPU identity (RISC-V
// mvendorid-marchid-mimpid of the first hart as perf matches it; x86 vendor/family/model),
// kernel release, CPU count, perf_event_paranoid, and which generic events open here.
#pragma once

#include <string_view>

#include "protocol/ktune.pb.h"

namespace ktune {

// Parses /proc/cpuinfo text into `cpu` (arch is not touched). Only the first processor's block
// is read: that is the hart perf takes its identity from.
void ParseCpuInfo(std::string_view cpuinfo, wire::CpuIdentity* cpu);

wire::Capabilities ProbeCapabilities();

}  // namespace ktune
