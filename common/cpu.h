// Which CPU a machine has, as perf identifies it, and which event table (common/event_tables.h)
// belongs to it.
#pragma once

#include <cstdint>
#include <string>

namespace ktune {

struct CpuId {
  std::string arch;        // uname machine: "x86_64", "riscv64", ...
  std::string riscv_id;    // "mvendorid-marchid-mimpid" of the first hart (RISC-V)
  std::string x86_vendor;  // "GenuineIntel", "AuthenticAMD" (x86)
  uint32_t x86_family = 0;
  uint32_t x86_model = 0;
  std::string model_name;  // free text, for people
};

// Parses /proc/cpuinfo text into `cpu` (arch is not touched). Only the first processor's block
// is read: that is the hart perf takes its identity from.
void ParseCpuInfo(std::string_view cpuinfo, CpuId* cpu);

// The table perf would choose: the first mapfile row whose regex matches the whole RISC-V id;
// "" when none does (and on other architectures, for which ktune has no tables).
std::string MatchCoreTable(const CpuId& cpu);

// "riscv64, 0x710-0x8000000058000001-0x0 (Spacemit(R) X60)", for messages.
std::string DescribeCpu(const CpuId& cpu);

}  // namespace ktune
