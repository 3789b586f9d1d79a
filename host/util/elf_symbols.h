// Function symbols and loadable segments of an ELF64 little-endian executable (x86-64, RISC-V,
// AArch64), to attribute sampled IPs to functions and instructions. The bytes are untrusted:
// every offset and size is checked before use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/profile.h"
#include "common/status.h"

namespace ktune::host {

// The machine of an ELF's first bytes (its 64-byte header) as `uname -m` names it ("riscv64",
// "x86_64", "aarch64"), or "" when they are not a little-endian ELF64 of one of those.
std::string ElfArch(std::string_view head);

struct ElfSymbol {
  std::string name;
  uint64_t addr = 0;
  uint64_t size = 0;
};

class ElfImage {
 public:
  static Result<ElfImage> Parse(std::string_view bytes);

  // ET_DYN (position independent): IPs need the process's mapping of the file to be placed.
  bool position_independent() const { return pie_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }  // by address

  // The link-time address of an IP sampled in a process, given that process's mappings of
  // this file; std::nullopt when the IP is not in an executable segment of this file.
  std::optional<uint64_t> AddressOf(uint64_t ip, const std::vector<Mapping>& mappings) const;
  // The function containing `addr`: the last symbol starting at or before it, if `addr` is
  // within its size; a symbol without a size covers up to the next symbol (the last one, only
  // its own address).
  const ElfSymbol* SymbolAt(uint64_t addr) const;
  const ElfSymbol* Find(std::string_view name) const;

 private:
  struct Segment {
    uint64_t vaddr, memsz, offset, filesz;
    bool executable;
  };
  bool pie_ = false;
  std::vector<Segment> segments_;
  std::vector<ElfSymbol> symbols_;
};

}  // namespace ktune::host
