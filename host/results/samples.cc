#include "host/results/samples.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "common/strings.h"
#include "host/util/elf_symbols.h"
#include "host/util/json_integer.h"
#include "host/util/user_paths.h"

namespace ktune::host {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// How to name an IP outside the ELF's functions: "[kernel]" for the kernel's half of the address
// space (the top bit set, on every 64-bit Linux), by the mapping it is in ("[vdso]",
// "[libc.so.6]"), else "[unknown]".
std::string OutsideName(uint64_t ip, const std::vector<Mapping>& mappings) {
  if (ip >> 63) return "[kernel]";
  for (const Mapping& m : mappings) {
    if (ip >= m.start && ip - m.start < m.len) {
      const std::string base = fs::path(m.file).filename().string();
      return base.starts_with("[") ? base : "[" + base + "]";
    }
  }
  return "[unknown]";
}

// A record's variant-wide part into v: name and ELF, lost and truncated samples, unsupported
// events (each once).
void AddRecordHeader(const ProfileRecord& r,
                     const std::map<uint32_t, std::pair<std::string, std::string>>& elves,
                     VariantSamples* v) {
  v->index = r.variant_index;
  auto info = elves.find(r.variant_index);
  if (info != elves.end()) std::tie(v->name, v->elf) = info->second;
  v->lost += r.profile.lost;
  v->truncated += r.profile.truncated;
  for (const std::string& u : r.profile.unsupported) {
    if (std::find(v->unsupported.begin(), v->unsupported.end(), u) == v->unsupported.end()) {
      v->unsupported.push_back(u);
    }
  }
}

// The variants' ELF images under root, each read and parsed once.
class ElfCache {
 public:
  explicit ElfCache(const std::string& root) : root_(root) {}

  // v's image; none when it has no ELF, or when it cannot be read (then v->problem says why).
  const ElfImage* Get(VariantSamples* v) {
    if (v->elf.empty()) return nullptr;
    auto it = images_.find(v->elf);
    if (it == images_.end()) {
      auto bytes = ReadBeneath(root_, v->elf);
      it = images_
               .emplace(v->elf,
                        bytes.ok() ? ElfImage::Parse(*bytes) : Result<ElfImage>(bytes.status()))
               .first;
    }
    if (it->second.ok()) return &*it->second;
    v->problem = v->elf + ": " + it->second.status().message();
    return nullptr;
  }

 private:
  std::string root_;
  std::map<std::string, Result<ElfImage>> images_;
};

// The mappings of the file whose path ends in `elf`; none when elf is "".
std::vector<Mapping> OwnMappings(const std::vector<Mapping>& mappings, const std::string& elf) {
  std::vector<Mapping> own;
  for (const Mapping& m : mappings) {
    if (!elf.empty() && m.file.size() >= elf.size() &&
        m.file.compare(m.file.size() - elf.size(), elf.size(), elf) == 0) {
      own.push_back(m);
    }
  }
  return own;
}

// Whether the profile says `event` could not sample ("<event>: why").
bool Unsupported(const Profile& profile, const std::string& event) {
  return std::any_of(profile.unsupported.begin(), profile.unsupported.end(),
                     [&](const std::string& u) { return u.rfind(event + ": ", 0) == 0; });
}

// v's entry for `event`, added empty when it has none yet.
EventSamples& EventOf(VariantSamples* v, const std::string& event) {
  auto it = std::find_if(v->events.begin(), v->events.end(),
                         [&](const EventSamples& s) { return s.event == event; });
  if (it != v->events.end()) return *it;
  v->events.push_back({event, 0, 0, {}, {}, std::nullopt});
  return v->events.back();
}

// An event's samples and period by symbol and by instruction address, while hits are added.
class HitTally {
 public:
  explicit HitTally(const EventSamples& ev) {
    for (const SymbolCount& s : ev.symbols) symbols_[s.symbol] = s;
    for (const InstructionCount& i : ev.instructions) instructions_[i.addr] = i;
  }

  // One hit, placed in the image through `own` when it can be, else named by where it fell.
  void Add(const SampleHit& h, const ElfImage* image, const std::vector<Mapping>& own,
           const std::vector<Mapping>& mappings, EventSamples* ev) {
    ev->samples += h.count;
    ev->period += h.period;
    std::string name = OutsideName(h.ip, mappings);
    std::optional<uint64_t> addr = image ? image->AddressOf(h.ip, own) : std::nullopt;
    if (addr) {
      name = "[unknown]";
      if (const ElfSymbol* s = image->SymbolAt(*addr)) name = s->name;
      InstructionCount& ic = instructions_[*addr];
      ic.addr = *addr;
      ic.symbol = name;
      ic.samples += h.count;
      ic.period += h.period;
    }
    SymbolCount& sc = symbols_[name];
    sc.symbol = name;
    sc.samples += h.count;
    sc.period += h.period;
  }

  // The symbols and instructions into ev, most period first.
  void StoreSorted(EventSamples* ev) const {
    ev->symbols.clear();
    for (const auto& [name, s] : symbols_) ev->symbols.push_back(s);
    std::sort(ev->symbols.begin(), ev->symbols.end(),
              [](const SymbolCount& a, const SymbolCount& b) { return a.period > b.period; });
    ev->instructions.clear();
    for (const auto& [addr, i] : instructions_) ev->instructions.push_back(i);
    std::sort(
        ev->instructions.begin(), ev->instructions.end(),
        [](const InstructionCount& a, const InstructionCount& b) { return a.period > b.period; });
  }

 private:
  std::map<std::string, SymbolCount> symbols_;
  std::map<uint64_t, InstructionCount> instructions_;
};

// The period an event's samples have in `symbol` (0 when none fell there).
uint64_t PeriodOf(const EventSamples& ev, const std::string& symbol) {
  uint64_t period = 0;
  for (const SymbolCount& s : ev.symbols) {
    if (s.symbol == symbol) period = s.period;
  }
  return period;
}

}  // namespace

std::string NotSupported(const std::string& unsupported) {
  const size_t colon = unsupported.find(": ");
  if (colon == std::string::npos) return unsupported + ": not supported";
  return unsupported.substr(0, colon) + ": not supported (" + unsupported.substr(colon + 2) + ")";
}

std::string SamplesPath(const std::string& results_path) {
  return fs::path(results_path).replace_extension(".samples.jsonl").string();
}

Result<SamplesWriter> SamplesWriter::Open(const std::string& path) {
  KT_ASSIGN_OR_RETURN(LinesAppend file, OpenLinesForAppend(path));
  KT_ASSIGN_OR_RETURN(std::vector<ProfileRecord> held, ParseSamples(file.text, path));
  SamplesWriter w(path, std::move(file.fd));
  for (const ProfileRecord& r : held) w.have_.insert({r.variant_index, r.pass, r.repetition});
  w.records_ = std::move(held);
  return w;
}

Status SamplesWriter::Append(const ProfileRecord& r) {
  const RowKey key{r.variant_index, r.pass, r.repetition};
  if (have_.count(key)) return Status::Ok();
  json j;
  j["variant_index"] = r.variant_index;
  j["pass"] = r.pass;
  j["repetition"] = r.repetition;
  j["events"] = r.profile.events;
  j["unsupported"] = r.profile.unsupported;
  j["samples"] = r.profile.samples;
  j["lost"] = r.profile.lost;
  j["truncated"] = r.profile.truncated;
  j["hits"] = json::array();
  for (const SampleHit& h : r.profile.hits) j["hits"].push_back({h.event, h.ip, h.count, h.period});
  j["chains"] = json::array();
  for (const SampleChain& c : r.profile.chains) {
    j["chains"].push_back({c.event, c.count, c.period, c.ips});
  }
  j["mappings"] = json::array();
  for (const Mapping& m : r.profile.mappings) {
    j["mappings"].push_back({m.start, m.len, m.pgoff, m.file});
  }
  KT_RETURN_IF_ERROR(
      WriteAll(fd_.get(), j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n", path_));
  have_.insert(key);
  records_.push_back(r);
  return Status::Ok();
}

Status SamplesWriter::Finish() {
  if (::fdatasync(fd_.get()) != 0) return ErrnoError("fsync " + path_, errno);
  return Status::Ok();
}

Result<std::vector<ProfileRecord>> ReadSamples(const std::string& path) {
  KT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseSamples(text, path);
}

Result<std::vector<ProfileRecord>> ParseSamples(std::string_view text, const std::string& path) {
  std::vector<ProfileRecord> out;
  std::vector<std::string_view> lines = Split(text, '\n');
  if (!text.empty() && text.back() != '\n') lines.pop_back();  // a torn last line
  size_t line_no = 0;
  for (std::string_view line : lines) {
    ++line_no;
    if (line.empty()) continue;
    try {
      const json j = json::parse(line);
      ProfileRecord r;
      r.variant_index = JsonInteger<uint32_t>(j.at("variant_index"));
      r.pass = JsonInteger<uint32_t>(j.at("pass"));
      r.repetition = JsonInteger<uint32_t>(j.at("repetition"));
      r.profile.events = j.at("events").get<std::vector<std::string>>();
      r.profile.unsupported = j.at("unsupported").get<std::vector<std::string>>();
      r.profile.samples = JsonInteger<uint64_t>(j.at("samples"));
      r.profile.lost = JsonInteger<uint64_t>(j.at("lost"));
      r.profile.truncated = j.contains("truncated") ? JsonInteger<uint64_t>(j.at("truncated")) : 0;
      for (const json& h : j.at("hits")) {
        r.profile.hits.push_back({JsonInteger<uint32_t>(h.at(0)), JsonInteger<uint64_t>(h.at(1)),
                                  JsonInteger<uint64_t>(h.at(2)), JsonInteger<uint64_t>(h.at(3))});
      }
      for (const json& c : j.at("chains")) {
        r.profile.chains.push_back({JsonInteger<uint32_t>(c.at(0)), JsonIntegers<uint64_t>(c.at(3)),
                                    JsonInteger<uint64_t>(c.at(1)),
                                    JsonInteger<uint64_t>(c.at(2))});
      }
      for (const json& m : j.at("mappings")) {
        r.profile.mappings.push_back({JsonInteger<uint64_t>(m.at(0)),
                                      JsonInteger<uint64_t>(m.at(1)),
                                      JsonInteger<uint64_t>(m.at(2)), m.at(3).get<std::string>()});
      }
      out.push_back(std::move(r));
    } catch (const json::exception& e) {
      return InvalidArgument(path + " line " + std::to_string(line_no) + ": " + e.what());
    }
  }
  return out;
}

std::vector<VariantSamples> Symbolize(
    const std::vector<ProfileRecord>& records,
    const std::map<uint32_t, std::pair<std::string, std::string>>& elves, const std::string& root,
    const std::string& kernel_symbol) {
  std::map<uint32_t, VariantSamples> by_variant;
  ElfCache images(root);
  for (const ProfileRecord& r : records) {
    VariantSamples& v = by_variant[r.variant_index];
    AddRecordHeader(r, elves, &v);
    const ElfImage* image = images.Get(&v);
    // Only the mappings of this variant's ELF place its IPs.
    const std::vector<Mapping> own = OwnMappings(r.profile.mappings, v.elf);
    for (size_t e = 0; e < r.profile.events.size(); ++e) {
      // An event that could not sample is reported as such, not as zero samples.
      if (Unsupported(r.profile, r.profile.events[e])) continue;
      EventSamples& ev = EventOf(&v, r.profile.events[e]);
      HitTally tally(ev);
      for (const SampleHit& h : r.profile.hits) {
        if (h.event != e) continue;  // also drops indexes a corrupt file might hold
        tally.Add(h, image, own, r.profile.mappings, &ev);
      }
      tally.StoreSorted(&ev);
      if (image && image->Find(kernel_symbol)) ev.kernel_period = PeriodOf(ev, kernel_symbol);
    }
  }
  std::vector<VariantSamples> out;
  for (auto& [index, v] : by_variant) out.push_back(std::move(v));
  return out;
}

Result<std::vector<VariantSamples>> LoadRunSamples(const std::string& results_path,
                                                   const std::vector<RepetitionRow>& rows,
                                                   const std::string& root,
                                                   const std::string& kernel_symbol) {
  const std::string path = SamplesPath(results_path);
  if (!fs::exists(path)) return std::vector<VariantSamples>();
  KT_ASSIGN_OR_RETURN(const std::vector<ProfileRecord> records, ReadSamples(path));
  return SymbolizeRun(records, rows, root, kernel_symbol);
}

std::vector<VariantSamples> SymbolizeRun(const std::vector<ProfileRecord>& records,
                                         const std::vector<RepetitionRow>& rows,
                                         const std::string& root,
                                         const std::string& kernel_symbol) {
  std::map<uint32_t, std::pair<std::string, std::string>> elves;
  for (const RepetitionRow& r : rows) elves[r.variant_index] = {r.variant, r.elf};
  return Symbolize(records, elves, root, kernel_symbol);
}

}  // namespace ktune::host
