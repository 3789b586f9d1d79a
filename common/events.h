// The event catalog: the names a user may write in --events and the perf_event_attr type/config
// each stands for. Every machine has perf's generic events, named exactly as `perf list` names
// them and built from the constants of <linux/perf_event.h>: hardware (cycles, instructions, ...),
// software (task-clock, page-faults, ...) and hardware-cache events (L1-dcache-load-misses,
// LLC-loads, ...). A RISC-V machine also has the SBI firmware events and, when perf's mapfile
// knows its core, that core's table (common/event_tables.h). A few names differ between the
// tables and what users write; the alias table maps them, each alias with its justification.
//
// Event syntax (perf's): NAME[:MODS] or rHEX[:MODS], where MODS is any of u (user), k (kernel),
// h (hypervisor); naming some privilege levels excludes the others. Table names match without
// regard to case, as in perf.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/cpu.h"

#include "common/status.h"

namespace ktune {

struct EventDef {
  std::string name;  // canonical name
  uint32_t type = 0;
  uint64_t config = 0;
  std::string unit;  // "ns" for the clocks, "" for counts
  std::string description;
  std::string source;  // "generic", or the table: "riscv/sbi-firmware", "spacemit/x60", ...
  std::string topic;   // the table's file ("cache", "microarch", ...); "" for generic events
};

struct EventSpec {
  std::string text;  // as the user wrote it, e.g. "cycles:u"; the value's name in results
  EventDef def;
  bool exclude_user = false;
  bool exclude_kernel = false;
  bool exclude_hv = false;
};

// A name users write that a table spells differently.
struct EventAlias {
  const char* table;   // where the target is
  const char* name;    // what users write
  const char* target;  // the table's name for it
  const char* reason;  // why they are the same event
};
std::span<const EventAlias> EventAliases();

class EventCatalog {
 public:
  // perf's generic events only.
  static EventCatalog Generic();
  // The events of a machine of architecture `arch` whose core table is `core` ("" for none):
  // generic, then on RISC-V the SBI firmware events, then the core's. An unknown core is an error
  // naming the known ones (khost reads what users write with CoreTableNamed first).
  static Result<EventCatalog> For(std::string_view arch, std::string_view core);
  // As perf chooses the table: `core_override` when given (a RISC-V CPU only: the tables are),
  // else MatchCoreTable(cpu).
  static Result<EventCatalog> ForCpu(const CpuId& cpu, std::string_view core_override);

  const std::string& core() const { return core_; }
  const std::vector<EventDef>& events() const { return events_; }

  // Parses one event in perf's syntax against this catalog. Unknown names are an error naming
  // the nearest entries.
  Result<EventSpec> Parse(std::string_view text) const;

 private:
  std::string core_;
  std::vector<EventDef> events_;
};

// The core table a --cpu-model names: a table's own name ("spacemit/x60"), or a RISC-V core's id
// as /proc/cpuinfo gives it, "mvendorid-marchid-mimpid" ("0x710-0x8000000058000001-0x0"),
// mapped as perf maps it (common/cpu.h MapRiscvId). Anything else is an error naming both forms.
// khost's: agentd receives the table's name.
Result<std::string> CoreTableNamed(std::string_view model);

// The names of all core tables (for messages and --cpu-model).
std::vector<std::string> CoreTableNames();

// perf's shortest name for a generic event, modifiers kept ("cs" for context-switches,
// "faults:u" for page-faults:u); the text itself when perf has none shorter.
std::string ShortEventName(std::string_view text);

// Splits "a,b:u,c" into event texts; empty items are an error.
Result<std::vector<std::string>> SplitEventList(std::string_view list);

}  // namespace ktune
