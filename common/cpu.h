// Which CPU a machine has, as perf identifies it, and which event table (common/event_tables.h)
// belongs to it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ktune {

struct CpuId {
  std::string arch;        // uname machine: "x86_64", "riscv64", ...
  std::string riscv_id;    // "mvendorid-marchid-mimpid" of the first hart (RISC-V)
  std::string x86_vendor;  // "GenuineIntel", "AuthenticAMD" (x86)
  uint32_t x86_family = 0;
  uint32_t x86_model = 0;
  std::string model_name;  // free text, for people
};

// The CPUs of a kernel CPU list, as /sys/devices/system/cpu/{online,isolated} and topology's
// sibling lists write them ("0-3,8,10-11"; "" or "\n" is none); nullopt when malformed.
std::optional<std::set<int>> ParseCpuList(const std::string& list);

// This machine's architecture as uname names it ("x86_64", "riscv64"); "" when uname fails.
std::string MachineArch();

// Parses /proc/cpuinfo text into `cpu` (arch is not touched). Only the first processor's block
// is read: that is the hart perf takes its identity from.
void ParseCpuInfo(std::string_view cpuinfo, CpuId* cpu);

// Whether `id` as a whole matches a mapfile regex in the subset of POSIX extended regexes the
// mapfiles use (scripts/gen_event_catalog.py refuses any other): literal characters and bracket
// expressions (ranges, [:xdigit:] and the other ctype classes), each optionally followed by '+'
// or '*'. Matches as regexec would with "^(...)$"; a pattern outside the subset matches nothing.
// Hand-written because glibc's regex alone was 3% of the static agentd.
bool MatchIdPattern(std::string_view pattern, std::string_view id);

// The mapfile row perf would choose for a RISC-V id ("mvendorid-marchid-mimpid"): its table, ""
// when the row names a table ktune lacks; nullopt when no row matches.
std::optional<std::string> MapRiscvId(std::string_view riscv_id);

// The table perf would choose: the first mapfile row whose regex matches the whole RISC-V id;
// "" when none does (and on other architectures, for which ktune has no tables).
std::string MatchCoreTable(const CpuId& cpu);

// "riscv64, 0x710-0x8000000058000001-0x0 (Spacemit(R) X60)", for messages.
std::string DescribeCpu(const CpuId& cpu);

// The core's identity: "riscv64:0x710-0x8000000058000001-0x0", "x86_64:GenuineIntel-6-85".
std::string CpuModelKey(const CpuId& cpu);

// What a board's rows are keyed by, and what a sweep over several boards must share
// ("riscv64:0x710-0x8000000058000001-0x0:Spacemit(R) X60", "x86_64:GenuineIntel-6-85:Intel(R)
// Xeon(R) ..."): the architecture, the core's ids and the model name, which tells apart parts of
// one core at different clocks.
std::string CpuFingerprint(const CpuId& cpu);

}  // namespace ktune
