// The ELF reader, the samples file and the attribution of samples to symbols, on the test ELFs
// (read as files, never run) and on malformed input.
#include <doctest/doctest.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/fs.h"
#include "host/report/report.h"
#include "host/report/samples_report.h"
#include "host/results/samples.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/host/results/samples_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using namespace fixture;

// The executable PT_LOAD of an ELF, read here with <elf.h> independently of ElfImage.
Elf64_Phdr ExecutableSegment(const std::string& bytes) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) return ph;
  }
  FAIL("no executable segment");
  return {};
}

TEST_CASE("a static executable's functions and addresses") {
  auto img = ElfImage::Parse(Bytes("spin.elf"));
  REQUIRE(img.ok());
  CHECK_FALSE(img->position_independent());
  const ElfSymbol* k = img->Find("spin_kernel");
  REQUIRE(k != nullptr);
  CHECK(k->size > 0);
  CHECK(img->SymbolAt(k->addr)->name == "spin_kernel");
  CHECK(img->SymbolAt(k->addr + k->size - 1)->name == "spin_kernel");
  CHECK(img->AddressOf(k->addr + 4, {}) == k->addr + 4);  // IPs are addresses
  CHECK_FALSE(img->AddressOf(0x10, {}).has_value());      // not in an executable segment
  CHECK_FALSE(img->AddressOf(0xffffffff81000000ull, {}).has_value());
  CHECK(img->SymbolAt(0) == nullptr);
}

TEST_CASE("a position-independent executable needs the process's mapping of it") {
  const std::string bytes = Bytes("spin_pie.elf");
  auto img = ElfImage::Parse(bytes);
  REQUIRE(img.ok());
  CHECK(img->position_independent());
  const ElfSymbol* k = img->Find("spin_kernel");
  REQUIRE(k != nullptr);
  const Elf64_Phdr text = ExecutableSegment(bytes);
  const uint64_t base = 0x7f1234560000ull, page = 4096;
  const Mapping m{base + (text.p_vaddr & ~(page - 1)), text.p_memsz + (text.p_vaddr % page),
                  text.p_offset & ~(page - 1), "/store/tree/k/run/bin/spin_pie.elf"};
  CHECK(img->AddressOf(base + k->addr + 8, {m}) == k->addr + 8);
  CHECK_FALSE(img->AddressOf(base + k->addr + 8, {}).has_value());  // no mapping, no place
  CHECK_FALSE(img->AddressOf(k->addr + 8, {m}).has_value());
}

TEST_CASE("malformed ELF bytes are errors, never crashes") {
  const std::string real = Bytes("spin.elf");
  CHECK_FALSE(ElfImage::Parse("").ok());
  CHECK_FALSE(ElfImage::Parse("\x7f"
                              "ELF")
                  .ok());
  CHECK_FALSE(ElfImage::Parse(std::string(4096, 'x')).ok());
  std::string elf32 = real;
  elf32[EI_CLASS] = ELFCLASS32;
  CHECK(ElfImage::Parse(elf32).status().code() == ErrorCode::kUnsupported);
  for (size_t cut : {size_t{63}, size_t{64}, size_t{200}, real.size() / 2, real.size() - 1}) {
    auto r = ElfImage::Parse(real.substr(0, cut));  // truncated anywhere: an error or fewer symbols
    if (r.ok()) CHECK(r->symbols().size() <= ElfImage::Parse(real)->symbols().size());
  }
  std::string bad_offsets = real;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bad_offsets.data(), sizeof eh);
  eh.e_shoff = ~0ull - 10;
  std::memcpy(bad_offsets.data(), &eh, sizeof eh);
  CHECK_FALSE(ElfImage::Parse(bad_offsets).ok());
}

}  // namespace
}  // namespace ktune::host
