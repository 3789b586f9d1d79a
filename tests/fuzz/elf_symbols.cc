// Fuzzes ElfImage (host/util/elf_symbols.h), which reads the ELF of each sampled variant for khost
// report --samples and --annotate: its header, program headers, section headers and symbol and
// string tables, every offset and size taken from the file.
//
// Input: an ELF file; its last 64 bytes are also read as 8 IPs to place.
//
// Asserts, beyond no crash and no sanitizer report:
// - the symbols come sorted by address;
// - every symbol's own address finds a symbol at that address;
// - a symbol found for an address starts at or before it and, when it has a size, covers it;
// - Find gives a symbol of the name asked for.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "host/util/elf_symbols.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

void CheckSymbolAt(const ElfImage& img, uint64_t addr) {
  const ElfSymbol* s = img.SymbolAt(addr);
  if (!s) return;
  FUZZ_CHECK(s->addr <= addr);
  if (s->size != 0) FUZZ_CHECK(addr - s->addr < s->size);
}

}  // namespace
}  // namespace ktune::host

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto img = ElfImage::Parse(bytes);
  if (!img.ok()) return 0;
  const std::vector<ElfSymbol>& symbols = img->symbols();
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (i > 0) FUZZ_CHECK(symbols[i - 1].addr <= symbols[i].addr);
    const ElfSymbol* at = img->SymbolAt(symbols[i].addr);
    FUZZ_CHECK(at && at->addr == symbols[i].addr);
    CheckSymbolAt(*img, symbols[i].addr + symbols[i].size);
    const ElfSymbol* named = img->Find(symbols[i].name);
    FUZZ_CHECK(named && named->name == symbols[i].name);
  }
  // IPs from the input, with the whole address space as one mapping of the file.
  const std::vector<Mapping> mappings = {{0, UINT64_MAX, 0, "a.elf"}};
  for (size_t at = size >= 64 ? size - 64 : size; at + 8 <= size; at += 8) {
    uint64_t ip;
    std::memcpy(&ip, data + at, sizeof ip);
    CheckSymbolAt(*img, ip);
    if (auto addr = img->AddressOf(ip, mappings)) CheckSymbolAt(*img, *addr);
  }
  return 0;
}
