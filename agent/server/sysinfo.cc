#include "agent/server/sysinfo.h"

#include <sys/utsname.h>
#include <unistd.h>

#include "agent/measure/perf_counters.h"
#include "agent/server/system_check.h"
#include "common/cpu.h"
#include "common/events.h"
#include "common/fs.h"
#include "common/strings.h"
#include "protocol/convert.h"

namespace ktune::agent {

Result<CpuId> DetectCpu(const std::string& fake_cpuinfo) {
  CpuId cpu;
  cpu.arch = MachineArch();
  if (!fake_cpuinfo.empty()) {
    KT_ASSIGN_OR_RETURN(const std::string info, ReadFile(fake_cpuinfo));
    ParseCpuInfo(info, &cpu);
  } else if (auto info = ReadFile("/proc/cpuinfo"); info.ok()) {
    ParseCpuInfo(*info, &cpu);
  }
  return cpu;
}

wire::Capabilities ProbeCapabilities(const CpuId& cpu, const std::string& system_root) {
  wire::Capabilities caps;
  CpuToWire(cpu, caps.mutable_cpu());
  utsname u;
  if (::uname(&u) == 0) caps.set_kernel_release(u.release);
  caps.set_cpu_count(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  if (auto p = ReadFile("/proc/sys/kernel/perf_event_paranoid"); p.ok()) {
    if (auto v = ParseInt(Trim(*p)); v.ok()) caps.set_perf_event_paranoid(*v);
  }
  caps.set_running_as_root(::geteuid() == 0);
  SystemCheckToWire(ReadSystemCheck(system_root, 0), caps.mutable_system());
  const std::string core = MatchCoreTable(cpu);
  caps.mutable_cpu()->set_core(core);
  // Which events open: one perf_event_open each, a quarter of a handshake's time. The PMU does not
  // change under a running agent, so the answer is kept for the next Hello while what decides it
  // besides (the table, perf_event_paranoid, the user) is the same; so is the catalog, whose
  // copy of the generic events took a seventh of a handshake (under ASan). Handshakes run on the
  // server's one io_context thread.
  struct Probed {
    std::string key;
    google::protobuf::RepeatedPtrField<wire::EventAvailability> events;
  };
  static Probed last;
  const std::string key =
      core + "/" + std::to_string(caps.perf_event_paranoid()) + "/" + std::to_string(::geteuid());
  if (key != last.key) {
    // The detected table is always known (it comes from the mapfile), so this cannot fail.
    const EventCatalog catalog = EventCatalog::ForCpu(cpu, "").value();
    last.events.Clear();
    for (const EventDef& def : catalog.events()) {
      auto spec = catalog.Parse(def.name);
      if (!spec.ok()) continue;
      const std::string why = ProbeEvent(*spec);
      auto* e = last.events.Add();
      e->set_name(def.name);
      e->set_opens(why.empty());
      e->set_reason(why);
    }
    last.key = key;
  }
  *caps.mutable_events() = last.events;
  return caps;
}

}  // namespace ktune::agent
