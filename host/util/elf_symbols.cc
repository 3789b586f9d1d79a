#include "host/util/elf_symbols.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

namespace ktune::host {

std::string ElfArch(std::string_view head) {
  if (head.size() < sizeof(Elf64_Ehdr) || std::memcmp(head.data(), ELFMAG, SELFMAG) != 0 ||
      head[EI_CLASS] != ELFCLASS64 || head[EI_DATA] != ELFDATA2LSB) {
    return "";
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, head.data(), sizeof eh);
  switch (eh.e_machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_RISCV:
      return "riscv64";
    default:
      return "";
  }
}

namespace {

// Copies a T from bytes[offset], if it is all there.
template <typename T>
bool ReadAt(std::string_view bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

// The defined functions of one symbol table, whose names are in `strtab`.
Status ReadFunctions(std::string_view bytes, const Elf64_Shdr& sh, const Elf64_Shdr& strtab,
                     std::vector<ElfSymbol>* out) {
  if (strtab.sh_offset > bytes.size() || bytes.size() - strtab.sh_offset < strtab.sh_size) {
    return InvalidArgument("truncated ELF string table");
  }
  const std::string_view strings = bytes.substr(strtab.sh_offset, strtab.sh_size);
  const uint64_t count = sh.sh_entsize == sizeof(Elf64_Sym) ? sh.sh_size / sizeof(Elf64_Sym) : 0;
  for (uint64_t k = 0; k < count; ++k) {
    Elf64_Sym sym;
    if (!ReadAt(bytes, sh.sh_offset + k * sizeof sym, &sym)) {
      return InvalidArgument("truncated ELF symbol table");
    }
    const int type = ELF64_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
        sym.st_name >= strings.size()) {
      continue;
    }
    const std::string_view rest = strings.substr(sym.st_name);
    out->push_back({std::string(rest.substr(0, rest.find('\0'))), sym.st_value, sym.st_size});
  }
  return Status::Ok();
}

}  // namespace

Result<ElfImage> ElfImage::Parse(std::string_view bytes) {
  Elf64_Ehdr eh;
  if (!ReadAt(bytes, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return InvalidArgument("not an ELF file");
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return Unsupported("only 64-bit little-endian ELF files are read");
  }
  ElfImage img;
  img.pie_ = eh.e_type == ET_DYN;
  if (eh.e_phentsize != sizeof(Elf64_Phdr) && eh.e_phnum) return InvalidArgument("bad ELF phdrs");
  for (uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!ReadAt(bytes, eh.e_phoff + i * sizeof ph, &ph))
      return InvalidArgument("truncated ELF phdrs");
    if (ph.p_type == PT_LOAD) {
      img.segments_.push_back(
          {ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_X) != 0});
    }
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr) && eh.e_shnum) return InvalidArgument("bad ELF shdrs");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    if (!ReadAt(bytes, eh.e_shoff + i * sizeof(Elf64_Shdr), &sections[i])) {
      return InvalidArgument("truncated ELF section headers");
    }
  }
  // The full symbol table when there is one, else the dynamic one.
  for (uint32_t wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (const Elf64_Shdr& sh : sections) {
      if (sh.sh_type != wanted || sh.sh_link >= sections.size()) continue;
      KT_RETURN_IF_ERROR(ReadFunctions(bytes, sh, sections[sh.sh_link], &img.symbols_));
    }
    if (!img.symbols_.empty()) break;
  }
  std::sort(img.symbols_.begin(), img.symbols_.end(), [](const ElfSymbol& a, const ElfSymbol& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.size > b.size;
  });
  return img;
}

std::optional<uint64_t> ElfImage::AddressOf(uint64_t ip,
                                            const std::vector<Mapping>& mappings) const {
  if (!pie_) {
    for (const Segment& s : segments_) {
      if (s.executable && ip >= s.vaddr && ip - s.vaddr < s.memsz) return ip;
    }
    return std::nullopt;
  }
  for (const Mapping& m : mappings) {
    if (ip < m.start || ip - m.start >= m.len) continue;
    const uint64_t file_offset = ip - m.start + m.pgoff;
    for (const Segment& s : segments_) {
      if (s.executable && file_offset >= s.offset && file_offset - s.offset < s.filesz) {
        return file_offset - s.offset + s.vaddr;
      }
    }
  }
  return std::nullopt;
}

const ElfSymbol* ElfImage::SymbolAt(uint64_t addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](uint64_t a, const ElfSymbol& s) { return a < s.addr; });
  if (it == symbols_.begin()) return nullptr;
  const ElfSymbol& s = *std::prev(it);
  if (s.size != 0) return addr - s.addr < s.size ? &s : nullptr;
  if (it == symbols_.end()) return addr == s.addr ? &s : nullptr;
  return &s;  // up to the next symbol
}

const ElfSymbol* ElfImage::Find(std::string_view name) const {
  for (const ElfSymbol& s : symbols_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace ktune::host
