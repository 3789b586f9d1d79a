// What the agent tells a host about its machine: architecture and CPU identity (RISC-V
// mvendorid-marchid-mimpid of the first hart as perf matches it; x86 vendor/family/model) and the
// event table that goes with it, kernel release, CPU count, perf_event_paranoid, and which events
// of its catalog open here, and the system check of CPU 0 (agent/server/system_check.h).
#pragma once

#include <string>

#include "common/cpu.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

// This machine's CPU: uname's architecture and /proc/cpuinfo's identity, or, with a
// `fake_cpuinfo` file (agentd --fake-cpuinfo), that file's identity.
Result<CpuId> DetectCpu(const std::string& fake_cpuinfo = "");

// `system_root`: where /sys and /proc are ("" for /; AgentOptions::fake_system_root).
wire::Capabilities ProbeCapabilities(const CpuId& cpu, const std::string& system_root);

}  // namespace ktune::agent
