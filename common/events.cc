#include "common/events.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/event_tables.h"
#include "common/strings.h"

namespace ktune {
namespace {

struct Named {
  const char* name;
  uint64_t config;
  const char* description;
};

constexpr Named kHardware[] = {
    {"cycles", PERF_COUNT_HW_CPU_CYCLES, "CPU cycles"},
    {"instructions", PERF_COUNT_HW_INSTRUCTIONS, "retired instructions"},
    {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES, "cache accesses (usually last level)"},
    {"cache-misses", PERF_COUNT_HW_CACHE_MISSES, "cache misses (usually last level)"},
    {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "retired branch instructions"},
    {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches"},
    {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES, "bus cycles"},
    {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "front-end stall cycles"},
    {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "back-end stall cycles"},
    {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles (not frequency scaled)"},
};

constexpr Named kSoftware[] = {
    {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "per-CPU clock, ns"},
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK, "time the task ran on a CPU, ns"},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults"},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches"},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "migrations to another CPU"},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O"},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O"},
    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment faults fixed by the kernel"},
    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, "instructions emulated by the kernel"},
};

// perf's aliases (tools/perf/util/parse-events.c).
constexpr std::pair<const char*, const char*> kGenericAliases[] = {
    {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
    {"idle-cycles-frontend", "stalled-cycles-frontend"},
    {"idle-cycles-backend", "stalled-cycles-backend"},
    {"faults", "page-faults"},
    {"cs", "context-switches"},
    {"migrations", "cpu-migrations"},
};

struct CacheUnit {
  const char* name;
  uint64_t id;
  bool read, write, prefetch;  // which operations perf lists for this cache
};
constexpr CacheUnit kCaches[] = {
    {"L1-dcache", PERF_COUNT_HW_CACHE_L1D, true, true, true},
    {"L1-icache", PERF_COUNT_HW_CACHE_L1I, true, false, true},
    {"LLC", PERF_COUNT_HW_CACHE_LL, true, true, true},
    {"dTLB", PERF_COUNT_HW_CACHE_DTLB, true, true, true},
    {"iTLB", PERF_COUNT_HW_CACHE_ITLB, true, false, false},
    {"branch", PERF_COUNT_HW_CACHE_BPU, true, false, false},
    {"node", PERF_COUNT_HW_CACHE_NODE, true, true, true},
};

std::vector<EventDef> BuildGeneric() {
  std::vector<EventDef> out;
  for (const Named& n : kHardware) {
    out.push_back({n.name, PERF_TYPE_HARDWARE, n.config, "", n.description, "generic", ""});
  }
  for (const Named& n : kSoftware) {
    const std::string unit =
        (n.config == PERF_COUNT_SW_CPU_CLOCK || n.config == PERF_COUNT_SW_TASK_CLOCK) ? "ns" : "";
    out.push_back({n.name, PERF_TYPE_SOFTWARE, n.config, unit, n.description, "generic", ""});
  }
  struct Op {
    const char* name;  // perf's "-loads"/"-load-misses" stems
    uint64_t id;
  };
  constexpr Op kRead{"load", PERF_COUNT_HW_CACHE_OP_READ};
  constexpr Op kWrite{"store", PERF_COUNT_HW_CACHE_OP_WRITE};
  constexpr Op kPrefetch{"prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH};
  for (const CacheUnit& c : kCaches) {
    std::vector<Op> ops;
    if (c.read) ops.push_back(kRead);
    if (c.write) ops.push_back(kWrite);
    if (c.prefetch) ops.push_back(kPrefetch);
    for (const Op& op : ops) {
      const std::string stem = std::string(c.name) + "-" + op.name;
      const std::string plural = op.id == PERF_COUNT_HW_CACHE_OP_PREFETCH ? "es" : "s";
      const uint64_t base = c.id | (op.id << 8);
      out.push_back({stem + plural, PERF_TYPE_HW_CACHE,
                     base | (uint64_t{PERF_COUNT_HW_CACHE_RESULT_ACCESS} << 16), "",
                     std::string(c.name) + " " + op.name + " accesses", "generic", ""});
      out.push_back({stem + "-misses", PERF_TYPE_HW_CACHE,
                     base | (uint64_t{PERF_COUNT_HW_CACHE_RESULT_MISS} << 16), "",
                     std::string(c.name) + " " + op.name + " misses", "generic", ""});
    }
  }
  return out;
}

const std::vector<EventDef>& GenericEvents() {
  static const std::vector<EventDef> kEvents = BuildGeneric();
  return kEvents;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Levenshtein distance, for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string NearestNames(std::string_view name, const std::vector<EventDef>& events) {
  std::vector<std::pair<size_t, std::string>> scored;
  const std::string lower = Lower(name);
  for (const EventDef& e : events) scored.emplace_back(EditDistance(lower, Lower(e.name)), e.name);
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> nearest;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) nearest.push_back(scored[i].second);
  return Join(nearest, ", ");
}

const EventTable* FindTable(std::string_view name) {
  for (const EventTable& t : EventTables()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

// Adds a table's events; a name already present (a core table repeating the SBI firmware events
// it refers to) is kept once.
void AddTable(const EventTable& t, std::vector<EventDef>* out) {
  for (size_t i = 0; i < t.size; ++i) {
    const TableEvent& e = t.events[i];
    const std::string lower = Lower(e.name);
    const bool present = std::any_of(out->begin(), out->end(), [&](const EventDef& d) {
      return d.type == PERF_TYPE_RAW && Lower(d.name) == lower;
    });
    if (!present) {
      out->push_back({e.name, PERF_TYPE_RAW, e.config, "", e.description, t.name, e.topic});
    }
  }
}

// Names users write that the tables spell differently. Each name has, in the table its reason
// names, the same event code as its target, and descriptions that say the same thing.
constexpr EventAlias kAliases[] = {
    {"sifive/bullet", "LONGLATENCY_INTERLOCK", "LONGLAT_INTERLOCK",
     "mainline perf's later name for code 0x201, \"Long-latency interlock\""},
    // The U74's id maps to sifive/bullet; these are the older sifive/u74 table's names.
    {"sifive/bullet", "ICACHE_RETIRED", "ICACHE_MISS",
     "sifive/u74's name for code 0x102, \"Instruction cache miss\""},
    {"sifive/bullet", "DCACHE_MISS_MMIO_ACCESSES", "DCACHE_MISS",
     "sifive/u74's name for code 0x202, \"Data cache miss or memory-mapped I/O access\""},
    {"sifive/bullet", "DCACHE_WRITEBACK", "DCACHE_RELEASE",
     "sifive/u74's name for code 0x402, \"Data cache write-back\""},
    {"sifive/bullet", "INST_TLB_MISS", "ITLB_MISS",
     "sifive/u74's name for code 0x802, \"Instruction TLB miss\""},
    {"sifive/bullet", "DATA_TLB_MISS", "DTLB_MISS",
     "sifive/u74's name for code 0x1002, \"Data TLB miss\""},
    {"sifive/bullet", "FP_ADDITION_RETIRED", "FP_ADD_RETIRED",
     "sifive/u74's name for code 0x200000, \"Floating-point addition retired\""},
    {"sifive/bullet", "FP_MULTIPLICATION_RETIRED", "FP_MUL_RETIRED",
     "sifive/u74's name for code 0x400000, \"Floating-point multiplication retired\""},
    {"sifive/bullet", "FP_FUSEDMADD_RETIRED", "FP_MULADD_RETIRED",
     "sifive/u74's name for code 0x800000, \"Floating-point fused multiply-add retired\""},
};

// perf's modifiers after the colon (u, k, h: count in user, kernel, hypervisor mode) into spec's
// excludes.
Status ParseModifiers(std::string_view mods, EventSpec* spec) {
  if (mods.empty()) return InvalidArgument("empty modifier in event '" + spec->text + "'");
  bool u = false, k = false, h = false;
  for (char c : mods) {
    if (c == 'u') {
      u = true;
    } else if (c == 'k') {
      k = true;
    } else if (c == 'h') {
      h = true;
    } else {
      return InvalidArgument("unknown modifier '" + std::string(1, c) + "' in event '" +
                             spec->text + "' (known: u, k, h)");
    }
  }
  spec->exclude_user = !u;
  spec->exclude_kernel = !k;
  spec->exclude_hv = !h;
  return Status::Ok();
}

// The code of a raw event "r<1 to 16 hex digits>"; none for any other name.
std::optional<uint64_t> RawCode(std::string_view name) {
  if (name.size() <= 1 || name[0] != 'r') return std::nullopt;
  std::string_view hex = name.substr(1);
  if (hex.size() > 16) return std::nullopt;
  uint64_t code = 0;
  for (char c : hex) {
    int d = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (d < 0) return std::nullopt;
    code = code << 4 | static_cast<uint64_t>(d);
  }
  return code;
}

// The event `name` means in a catalog of `core`: generic names and perf's aliases exactly,
// table names in any case or by the core's aliases.
const EventDef* FindEvent(const std::vector<EventDef>& events, const std::string& core,
                          std::string_view name) {
  std::string generic(name);
  for (const auto& [alias, target] : kGenericAliases) {
    if (generic == alias) generic = target;
  }
  const std::string lower = Lower(name);
  std::string aliased;
  for (const EventAlias& a : kAliases) {
    if (core == a.table && lower == Lower(a.name)) aliased = Lower(a.target);
  }
  for (const EventDef& e : events) {
    const bool match = e.source == "generic" ? e.name == generic
                                             : Lower(e.name) == lower ||
                                                   (!aliased.empty() && Lower(e.name) == aliased);
    if (match) return &e;
  }
  return nullptr;
}

}  // namespace

std::span<const EventAlias> EventAliases() {
  return kAliases;
}

EventCatalog EventCatalog::Generic() {
  EventCatalog c;
  c.events_ = GenericEvents();
  return c;
}

Result<std::string> CoreTableNamed(std::string_view model) {
  if (FindTable(model)) return std::string(model);
  const std::string id = Lower(model);
  if (id.rfind("0x", 0) == 0) {
    if (std::optional<std::string> table = MapRiscvId(id)) {
      if (!table->empty()) return *table;
      return InvalidArgument("perf's mapfile maps the RISC-V core " + id +
                             " to an event table ktune does not have");
    }
  }
  return InvalidArgument("no event table for CPU model '" + std::string(model) +
                         "' (a table: " + Join(CoreTableNames(), ", ") +
                         "; or a RISC-V core's mvendorid-marchid-mimpid from /proc/cpuinfo, as "
                         "in perf's mapfile, e.g. 0x710-0x8000000058000001-0x0 for the X60)");
}

Result<EventCatalog> EventCatalog::For(std::string_view arch, std::string_view core) {
  EventCatalog c = Generic();
  c.core_ = std::string(core);
  if (arch == "riscv64" || !core.empty()) AddTable(*FindTable("riscv/sbi-firmware"), &c.events_);
  if (!core.empty()) {
    const EventTable* t = FindTable(core);
    if (!t) {
      return InvalidArgument("no event table for CPU model '" + std::string(core) +
                             "' (known: " + Join(CoreTableNames(), ", ") + ")");
    }
    AddTable(*t, &c.events_);
  }
  return c;
}

Result<EventCatalog> EventCatalog::ForCpu(const CpuId& cpu, std::string_view core_override) {
  // Every table is a RISC-V core's: its raw codes mean other events elsewhere.
  if (!core_override.empty() && !cpu.arch.empty() && cpu.arch != "riscv64") {
    KT_RETURN_IF_ERROR(For("riscv64", core_override).status());  // an unknown name first
    return InvalidArgument("CPU model " + std::string(core_override) +
                           " is a RISC-V table; the agent's CPU is " + cpu.arch);
  }
  return For(cpu.arch, core_override.empty() ? MatchCoreTable(cpu) : std::string(core_override));
}

std::string ShortEventName(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  std::string_view shortest = name;
  for (const auto& [alias, target] : kGenericAliases) {
    if (name == target && std::string_view(alias).size() < shortest.size()) shortest = alias;
  }
  return std::string(shortest) +
         std::string(colon == std::string_view::npos ? "" : text.substr(colon));
}

std::vector<std::string> CoreTableNames() {
  std::vector<std::string> names;
  for (const EventTable& t : EventTables()) {
    if (std::string_view(t.name).rfind("riscv/", 0) != 0) names.push_back(t.name);
  }
  return names;
}

Result<EventSpec> EventCatalog::Parse(std::string_view text) const {
  EventSpec spec;
  spec.text = std::string(text);
  std::string_view name = text;
  size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    name = text.substr(0, colon);
    KT_RETURN_IF_ERROR(ParseModifiers(text.substr(colon + 1), &spec));
  }
  if (name.empty()) return InvalidArgument("empty event name");
  if (auto code = RawCode(name)) {
    spec.def = {std::string(name), PERF_TYPE_RAW, *code, "", "raw event code", "raw", ""};
    return spec;
  }
  if (const EventDef* e = FindEvent(events_, core_, name)) {
    spec.def = *e;
    return spec;
  }
  return InvalidArgument("unknown event '" + std::string(name) + "'" +
                         (core_.empty() ? "" : " for " + core_) +
                         "; nearest: " + NearestNames(name, events_));
}

Result<std::vector<std::string>> SplitEventList(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view item : Split(list, ',')) {
    item = Trim(item);
    if (item.empty())
      return InvalidArgument("empty item in event list '" + std::string(list) + "'");
    out.emplace_back(item);
  }
  return out;
}

}  // namespace ktune
