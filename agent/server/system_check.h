// Reads the system check (common/system_check.h) of this machine for a measured CPU: what agentd
// sends with its capabilities (CPU 0) and with each run's RunAccepted (the run's CPU, as the run
// starts). Pure reading of files under a root directory, so tests give it a fixture tree.
#pragma once

#include <string>

#include "common/system_check.h"

namespace ktune::agent {

// Reads, under `root` ("" for the real /):
//   sys/devices/system/cpu/cpuN/cpufreq/scaling_{governor,min_freq,max_freq,cur_freq}
//   sys/devices/system/cpu/cpufreq/boost, else sys/devices/system/cpu/intel_pstate/no_turbo
//   sys/devices/system/cpu/{online,isolated,nohz_full}, cpuN/topology/thread_siblings_list,
//   cpuN/cache/index*/{level,type,size}
//   sys/class/thermal/thermal_zone*/{type,temp}, in the zones' numeric order
//   proc/sys/kernel/randomize_va_space, proc/loadavg, proc/stat's procs_running
// for N = `cpu`, or CPU 0 when `cpu` is -1 (not pinned). The runnable tasks are the whole
// machine's (procs_running, less the reader itself): the fewest of three reads 10 ms apart, so a
// task passing through as the run starts does not count, where counting the measured CPU's own
// would mean reading every task's /proc/<pid>/task/<tid>/stat. A file that is missing or
// unreadable leaves its field unknown.
SystemCheck ReadSystemCheck(const std::string& root, int cpu);

// Only what can change during a run, from the same files: the CPU's scaling_cur_freq and the
// hottest thermal zone.
MachineState ReadMachineState(const std::string& root, int cpu);

}  // namespace ktune::agent
