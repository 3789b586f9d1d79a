#include "common/cpu.h"

#include <sys/utsname.h>

#include <array>
#include <cctype>
#include <vector>

#include "common/event_tables.h"
#include "common/strings.h"

namespace ktune {

std::string MachineArch() {
  utsname u{};
  return ::uname(&u) == 0 ? u.machine : "";
}

void ParseCpuInfo(std::string_view cpuinfo, CpuId* cpu) {
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
      cpu->x86_vendor = value;
    } else if (key == "cpu family") {
      if (auto v = ParseUint64(value); v.ok()) cpu->x86_family = static_cast<uint32_t>(*v);
    } else if (key == "model") {
      if (auto v = ParseUint64(value); v.ok()) cpu->x86_model = static_cast<uint32_t>(*v);
    } else if (key == "model name" || key == "uarch") {
      if (cpu->model_name.empty()) cpu->model_name = value;
    }
  }
  if (!mvendorid.empty() || !marchid.empty() || !mimpid.empty()) {
    cpu->riscv_id = mvendorid + "-" + marchid + "-" + mimpid;
  }
}

namespace {

// One atom of a pattern: the characters it accepts, and whether it may repeat or be absent.
struct IdAtom {
  std::array<bool, 256> accepts{};
  bool repeat = false;    // '+' or '*'
  bool optional = false;  // '*'
};

bool IsClassChar(const std::string& cls, unsigned char c) {
  if (cls == "xdigit") return std::isxdigit(c);
  if (cls == "digit") return std::isdigit(c);
  if (cls == "alpha") return std::isalpha(c);
  if (cls == "alnum") return std::isalnum(c);
  if (cls == "upper") return std::isupper(c);
  if (cls == "lower") return std::islower(c);
  return false;
}

// "[...]" from `pattern[i]` (just past '['), into `atom`; false for anything outside the subset
// (negation, collating elements, unknown classes, no closing bracket).
bool ParseBracket(std::string_view pattern, size_t* i, IdAtom* atom) {
  bool first = true;
  for (; *i < pattern.size(); first = false) {
    const char c = pattern[*i];
    if (c == ']' && !first) {
      ++*i;
      return true;
    }
    if (c == '^' && first) return false;
    if (pattern.substr(*i, 2) == "[:") {
      const size_t end = pattern.find(":]", *i + 2);
      if (end == std::string_view::npos) return false;
      const std::string cls(pattern.substr(*i + 2, end - *i - 2));
      if (!IsClassChar(cls, '0') && !IsClassChar(cls, 'a') && !IsClassChar(cls, 'A')) {
        return false;
      }
      for (int ch = 0; ch < 256; ++ch) {
        atom->accepts[ch] = atom->accepts[ch] || IsClassChar(cls, static_cast<unsigned char>(ch));
      }
      *i = end + 2;
    } else if (c == '[') {
      return false;
    } else if (*i + 2 < pattern.size() && pattern[*i + 1] == '-' && pattern[*i + 2] != ']') {
      const auto lo = static_cast<unsigned char>(c);
      const auto hi = static_cast<unsigned char>(pattern[*i + 2]);
      if (lo > hi) return false;
      for (int ch = lo; ch <= hi; ++ch) atom->accepts[ch] = true;
      *i += 3;
    } else {
      atom->accepts[static_cast<unsigned char>(c)] = true;
      ++*i;
    }
  }
  return false;
}

bool ParseIdPattern(std::string_view pattern, std::vector<IdAtom>* atoms) {
  for (size_t i = 0; i < pattern.size();) {
    IdAtom atom;
    const char c = pattern[i++];
    if (c == '[') {
      if (!ParseBracket(pattern, &i, &atom)) return false;
    } else if (std::string_view(".()*+?{}|^$\\]").find(c) != std::string_view::npos) {
      return false;
    } else {
      atom.accepts[static_cast<unsigned char>(c)] = true;
    }
    if (i < pattern.size() && (pattern[i] == '+' || pattern[i] == '*')) {
      atom.repeat = true;
      atom.optional = pattern[i] == '*';
      ++i;
    }
    atoms->push_back(atom);
  }
  return true;
}

// Backtracking over the atoms; the patterns are a few dozen characters.
bool MatchAtoms(const std::vector<IdAtom>& atoms, size_t a, std::string_view id) {
  if (a == atoms.size()) return id.empty();
  const IdAtom& atom = atoms[a];
  size_t n = 0;
  const size_t most = atom.repeat ? id.size() : std::min<size_t>(1, id.size());
  while (n < most && atom.accepts[static_cast<unsigned char>(id[n])]) ++n;
  const size_t least = atom.optional ? 0 : 1;
  for (size_t taken = n + 1; taken-- > least;) {
    if (MatchAtoms(atoms, a + 1, id.substr(taken))) return true;
  }
  return false;
}

}  // namespace

bool MatchIdPattern(std::string_view pattern, std::string_view id) {
  std::vector<IdAtom> atoms;
  return ParseIdPattern(pattern, &atoms) && MatchAtoms(atoms, 0, id);
}

std::optional<std::string> MapRiscvId(std::string_view riscv_id) {
  for (const CpuMapping& m : CpuMappings()) {
    // A row whose table ktune lacks still matches first, as in perf: no table then.
    if (MatchIdPattern(m.id_regex, riscv_id)) return std::string(m.table);
  }
  return std::nullopt;
}

std::string MatchCoreTable(const CpuId& cpu) {
  if (cpu.riscv_id.empty()) return "";
  return MapRiscvId(cpu.riscv_id).value_or("");
}

std::string DescribeCpu(const CpuId& cpu) {
  std::string s = cpu.arch.empty() ? "unknown architecture" : cpu.arch;
  if (!cpu.riscv_id.empty()) s += ", " + cpu.riscv_id;
  if (!cpu.x86_vendor.empty()) {
    s += ", " + cpu.x86_vendor + " family " + std::to_string(cpu.x86_family) + " model " +
         std::to_string(cpu.x86_model);
  }
  if (!cpu.model_name.empty()) s += " (" + cpu.model_name + ")";
  return s;
}

std::string CpuModelKey(const CpuId& cpu) {
  if (!cpu.riscv_id.empty()) return cpu.arch + ":" + cpu.riscv_id;
  return cpu.arch + ":" + cpu.x86_vendor + "-" + std::to_string(cpu.x86_family) + "-" +
         std::to_string(cpu.x86_model);
}

std::string CpuFingerprint(const CpuId& cpu) {
  return CpuModelKey(cpu) + ":" + cpu.model_name;
}

std::optional<std::set<int>> ParseCpuList(const std::string& list) {
  std::set<int> cpus;
  for (std::string_view part : Split(Trim(list), ',')) {
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    auto first = ParseInt(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : ParseInt(part.substr(dash + 1));
    if (!first.ok() || !last.ok() || *first < 0 || *last < *first) return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu) cpus.insert(cpu);
  }
  return cpus;
}

}  // namespace ktune
