#include "host/report/samples_report.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/strings.h"
#include "host/util/format.h"

namespace ktune::host {
namespace {

// part's share of whole, "12.5%" ("0.0%" of nothing).
std::string Percent(uint64_t part, uint64_t whole) {
  return FormatPercent(whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole)
                             : 0.0);
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::vector<Table> SamplesTables(const std::vector<VariantSamples>& samples, size_t top,
                                 const std::string& kernel_symbol) {
  std::vector<Table> tables;
  for (const VariantSamples& v : samples) {
    std::vector<std::string> notes;
    if (v.lost) notes.push_back(std::to_string(v.lost) + " samples lost");
    if (v.truncated) {
      notes.push_back(std::to_string(v.truncated) + " samples of rarely hit IPs left out");
    }
    for (const std::string& u : v.unsupported) notes.push_back("sampling " + NotSupported(u));
    if (!v.problem.empty()) notes.push_back("symbols unavailable: " + v.problem);
    if (v.events.empty()) {
      Table t;
      t.title = v.name + ": no event sampled";
      t.columns = {"share", "samples", "period", "symbol"};
      t.notes = notes;
      tables.push_back(std::move(t));
    }
    for (const EventSamples& e : v.events) {
      Table t;
      t.title = v.name + ": " + e.event + ": " + std::to_string(e.samples) + " samples, period " +
                std::to_string(e.period);
      if (e.kernel_period) {
        t.title += ", " + kernel_symbol + " period " + std::to_string(*e.kernel_period) + " (" +
                   Percent(*e.kernel_period, e.period) + ")";
      }
      t.columns = {"share", "samples", "period", "symbol"};
      t.text_columns = 0;
      t.trailing_text_columns = 1;
      for (size_t i = 0; i < e.symbols.size() && i < top; ++i) {
        const SymbolCount& s = e.symbols[i];
        t.AddRow({Percent(s.period, e.period), std::to_string(s.samples), std::to_string(s.period),
                  s.symbol},
                 s.symbol == kernel_symbol ? RowStyle::kGood : RowStyle::kPlain);
      }
      t.notes = notes;
      notes.clear();  // once per variant
      tables.push_back(std::move(t));
    }
  }
  return tables;
}

std::string RenderSamplesJson(const std::vector<VariantSamples>& samples) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const VariantSamples& v : samples) {
    nlohmann::ordered_json jv;
    jv["index"] = v.index;
    jv["name"] = v.name;
    jv["elf"] = v.elf;
    jv["lost"] = v.lost;
    jv["truncated"] = v.truncated;
    jv["unsupported"] = v.unsupported;
    if (!v.problem.empty()) jv["problem"] = v.problem;
    jv["events"] = nlohmann::ordered_json::array();
    for (const EventSamples& e : v.events) {
      nlohmann::ordered_json je;
      je["event"] = e.event;
      je["samples"] = e.samples;
      je["period"] = e.period;
      je["kernel_period"] = e.kernel_period ? nlohmann::ordered_json(*e.kernel_period)
                                            : nlohmann::ordered_json(nullptr);
      je["symbols"] = nlohmann::ordered_json::array();
      for (const SymbolCount& s : e.symbols) {
        je["symbols"].push_back(
            {{"symbol", s.symbol}, {"samples", s.samples}, {"period", s.period}});
      }
      je["instructions"] = nlohmann::ordered_json::array();
      for (const InstructionCount& i : e.instructions) {
        je["instructions"].push_back({{"addr", "0x" + Hex(i.addr)},
                                      {"symbol", i.symbol},
                                      {"samples", i.samples},
                                      {"period", i.period}});
      }
      jv["events"].push_back(je);
    }
    doc.push_back(jv);
  }
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string RenderAnnotated(const VariantSamples& v, const std::string& event,
                            const std::string& disassembly) {
  const EventSamples* e = nullptr;
  for (const EventSamples& s : v.events) {
    if (s.event == event) e = &s;
  }
  if (!e) return v.name + ": no samples of " + event + "\n";
  std::map<uint64_t, const InstructionCount*> at;
  std::set<std::string> sampled;
  for (const InstructionCount& i : e->instructions) {
    at[i.addr] = &i;
    sampled.insert(i.symbol);
  }
  std::string out = v.name + ", " + event + " (" + std::to_string(e->samples) + " samples):\n";
  if (disassembly.empty()) {
    for (const InstructionCount& i : e->instructions) {
      out += "  " + Percent(i.period, e->period) + "  " + Hex(i.addr) + "  " + i.symbol + "\n";
    }
    return out;
  }
  // objdump -d: "0000000000010b00 <matmul_kernel>:" opens a function, "   10b4c:\t..." is an
  // instruction. Only the functions that were sampled are shown.
  bool showing = false;
  for (std::string_view line : Split(disassembly, '\n')) {
    const std::string_view t = Trim(line);
    const size_t lt = t.find(" <");
    if (lt != std::string_view::npos && t.ends_with(">:")) {
      const std::string name(t.substr(lt + 2, t.size() - lt - 4));
      showing = sampled.count(name) > 0;
      if (showing) out += "\n" + std::string(t) + "\n";
      continue;
    }
    if (!showing || t.empty()) continue;
    const size_t colon = t.find(':');
    uint64_t addr = 0;
    bool is_insn = colon != std::string_view::npos && colon > 0;
    for (size_t k = 0; is_insn && k < colon; ++k) {
      const char c = t[k];
      const int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
      if (d < 0) is_insn = false;
      addr = addr * 16 + static_cast<uint64_t>(d < 0 ? 0 : d);
    }
    auto hit = is_insn ? at.find(addr) : at.end();
    char share[32] = "";
    if (hit != at.end())
      std::snprintf(share, sizeof share, "%6s", Percent(hit->second->period, e->period).c_str());
    out += std::string(share[0] ? share : "      ") + " | " + std::string(line) + "\n";
  }
  return out;
}

}  // namespace ktune::host
