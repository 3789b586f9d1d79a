#include "agent/sysinfo.h"

#include <sys/utsname.h>
#include <unistd.h>

#include "agent/perf_counters.h"
#include "common/events.h"
#include "common/fs.h"
#include "common/strings.h"

namespace ktune {

void ParseCpuInfo(std::string_view cpuinfo, wire::CpuIdentity* cpu) {
  std::string mvendorid, marchid, mimpid;
  bool seen_processor = false;
  for (std::string_view line : Split(cpuinfo, '\n')) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string value(Trim(line.substr(colon + 1)));
    if (key == "processor") {
      if (seen_processor) break;  // the second processor's block begins
      seen_processor = true;
    } else if (key == "mvendorid") {
      mvendorid = value;
    } else if (key == "marchid") {
      marchid = value;
    } else if (key == "mimpid") {
      mimpid = value;
    } else if (key == "vendor_id") {
      cpu->set_x86_vendor(value);
    } else if (key == "cpu family") {
      if (auto v = ParseUint64(value); v.ok()) cpu->set_x86_family(static_cast<uint32_t>(*v));
    } else if (key == "model") {
      if (auto v = ParseUint64(value); v.ok()) cpu->set_x86_model(static_cast<uint32_t>(*v));
    } else if (key == "model name" || key == "uarch") {
      if (cpu->model_name().empty()) cpu->set_model_name(value);
    }
  }
  if (!mvendorid.empty() || !marchid.empty() || !mimpid.empty()) {
    cpu->set_riscv_id(mvendorid + "-" + marchid + "-" + mimpid);
  }
}

wire::Capabilities ProbeCapabilities() {
  wire::Capabilities caps;
  utsname u;
  if (::uname(&u) == 0) {
    caps.mutable_cpu()->set_arch(u.machine);
    caps.set_kernel_release(u.release);
  }
  if (auto info = ReadFile("/proc/cpuinfo"); info.ok()) ParseCpuInfo(*info, caps.mutable_cpu());
  caps.set_cpu_count(static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  if (auto p = ReadFile("/proc/sys/kernel/perf_event_paranoid"); p.ok()) {
    if (auto v = ParseInt(Trim(*p)); v.ok()) caps.set_perf_event_paranoid(*v);
  }
  caps.set_running_as_root(::geteuid() == 0);
  for (const EventDef& def : GenericEvents()) {
    auto spec = ParseEventSpec(def.name);
    if (!spec.ok()) continue;
    const std::string why = ProbeEvent(*spec);
    auto* e = caps.add_events();
    e->set_name(def.name);
    e->set_opens(why.empty());
    e->set_reason(why);
  }
  return caps;
}

}  // namespace ktune
