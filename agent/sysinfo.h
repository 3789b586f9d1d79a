// What the agent tells a host about its machine: architecture and CPU identity (RISC-V
// mvendorid-marchid-mimpid of the first hart as perf matches it; x86 vendor/family/model) and the
// event table that goes with it, kernel release, CPU count, perf_event_paranoid, and which events
// of its catalog open here.
#pragma once

#include "common/cpu.h"
#include "protocol/ktune.pb.h"

namespace ktune {

// This machine's CPU: uname's architecture and /proc/cpuinfo's identity.
CpuId DetectCpu();

wire::Capabilities ProbeCapabilities(const CpuId& cpu);

}  // namespace ktune
