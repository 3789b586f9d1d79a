#include "host/report/roofline.h"

#include <algorithm>
#include <cmath>

#include "host/util/format.h"

namespace ktune::host {

std::optional<ComputeCeiling> PeakOf(const Ceilings& c, const std::string& precision) {
  std::optional<ComputeCeiling> best;
  for (const ComputeCeiling& k : c.compute) {
    if (k.precision == precision && (!best || k.gflops > best->gflops)) best = k;
  }
  return best;
}

std::optional<MemoryCeiling> LevelFor(const Ceilings& c, double working_set_bytes) {
  for (const MemoryCeiling& m : c.memory) {
    if (m.size_bytes == 0 || working_set_bytes <= static_cast<double>(m.size_bytes)) return m;
  }
  if (c.memory.empty()) return std::nullopt;
  return c.memory.back();
}

std::vector<MemoryCeiling> LevelsFromCurve(std::vector<BandwidthPoint> curve, double drop) {
  std::erase_if(curve, [](const BandwidthPoint& p) { return !(p.gbytes_s > 0); });
  std::stable_sort(
      curve.begin(), curve.end(),
      [](const BandwidthPoint& a, const BandwidthPoint& b) { return a.bytes < b.bytes; });
  std::vector<std::vector<BandwidthPoint>> runs;
  for (size_t i = 0; i < curve.size(); ++i) {
    if (i == 0 || curve[i].gbytes_s < curve[i - 1].gbytes_s * (1 - drop)) runs.emplace_back();
    runs.back().push_back(curve[i]);
  }
  // A lone point between two levels is a transition.
  std::vector<std::vector<BandwidthPoint>> levels;
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].size() == 1 && r > 0 && r + 1 < runs.size()) continue;
    levels.push_back(runs[r]);
  }
  std::vector<MemoryCeiling> out;
  for (size_t l = 0; l < levels.size(); ++l) {
    std::vector<BandwidthPoint> over = levels[l];
    const bool dram = levels.size() > 1 && l + 1 == levels.size();
    if (dram) {
      // Beyond 4x the last cache's capacity, as STREAM sizes its arrays; the largest working set
      // alone when none is that large.
      const double beyond = 4.0 * static_cast<double>(out.back().size_bytes);
      std::erase_if(over, [&](const BandwidthPoint& p) { return p.bytes < beyond; });
      if (over.empty()) over = {levels[l].back()};
    }
    MemoryCeiling m;
    m.from_bytes = static_cast<uint64_t>(over.front().bytes);
    for (const BandwidthPoint& p : over) {
      m.gbytes_s = std::max(m.gbytes_s, p.gbytes_s);
      m.size_bytes = std::max(m.size_bytes, static_cast<uint64_t>(p.bytes));
    }
    if (levels.size() == 1) {
      m.level = "memory";
      m.size_bytes = 0;
    } else if (dram) {
      m.level = "DRAM";
      m.size_bytes = 0;
    } else {
      m.level = "L" + std::to_string(l + 1);
    }
    out.push_back(m);
  }
  return out;
}

double Attainable(double peak_gflops, double gbytes_s, double intensity) {
  return std::min(peak_gflops, intensity * gbytes_s);
}

namespace {

// Where `p` sits under `ceilings`: its level, attainable rate, fraction and bound.
void PlaceUnder(const Ceilings& ceilings, const std::string& precision, const VariantWorkTime& v,
                Placement& p) {
  const std::optional<ComputeCeiling> peak = PeakOf(ceilings, precision);
  const std::optional<MemoryCeiling> level =
      v.bytes && *v.bytes > 0 ? LevelFor(ceilings, *v.bytes) : std::nullopt;
  if (level) p.level = level->level;
  if (p.gflops && peak && (!p.intensity || !level)) {  // no traffic: the compute peak alone
    p.attainable_gflops = peak->gflops;
    p.bound = "compute";
  } else if (p.gflops && p.intensity && level) {
    const double roof = p.intensity.value() * level->gbytes_s;
    p.attainable_gflops = peak ? Attainable(peak->gflops, level->gbytes_s, *p.intensity) : roof;
    p.bound = peak && roof >= peak->gflops ? "compute" : "memory";
  }
  if (p.attainable_gflops && *p.attainable_gflops > 0) {
    p.fraction = *p.gflops / *p.attainable_gflops;
  } else if (!p.gflops && p.gbytes_s && level && level->gbytes_s > 0) {
    p.fraction = *p.gbytes_s / level->gbytes_s;  // a kernel that only moves data
    p.bound = "memory";
  }
}

}  // namespace

std::vector<Placement> PlaceVariants(const std::vector<VariantWorkTime>& variants,
                                     const std::optional<Ceilings>& ceilings,
                                     const std::string& precision) {
  std::vector<Placement> out;
  for (const VariantWorkTime& v : variants) {
    Placement p;
    p.variant = v.variant;
    if (!v.seconds || !(*v.seconds > 0) || !std::isfinite(*v.seconds)) {
      out.push_back(p);
      continue;
    }
    p.seconds = *v.seconds;
    if (v.flops && *v.flops > 0) p.gflops = *v.flops / p.seconds / 1e9;
    if (v.bytes && *v.bytes > 0) p.gbytes_s = *v.bytes / p.seconds / 1e9;
    if (v.flops && v.bytes && *v.bytes > 0) p.intensity = *v.flops / *v.bytes;
    if (ceilings) PlaceUnder(*ceilings, precision, v, p);
    out.push_back(p);
  }
  return out;
}

std::string PlacementSentence(const Placement& p) {
  std::string rates;
  if (p.gflops) rates = FormatNumber(*p.gflops) + " GFLOP/s";
  if (p.gbytes_s) rates += (rates.empty() ? "" : ", ") + FormatNumber(*p.gbytes_s) + " GB/s";
  if (p.intensity) {
    rates += (rates.empty() ? "" : ", ") + FormatNumber(*p.intensity) + " FLOP/byte";
  }
  if (!p.fraction) return rates;
  std::string where = p.bound + "-bound";
  if (p.bound == "memory" && !p.level.empty()) where += " at " + p.level;
  return FormatPercent(*p.fraction * 100) + " of the board's attainable peak at its intensity (" +
         rates + "), " + where;
}

std::string ThreadsLabel(int64_t threads) {
  return threads == 1 ? std::string("one core") : std::to_string(threads) + " threads";
}

CeilingsSummary SummarizeCeilings(const Ceilings& c) {
  CeilingsSummary out;
  for (const char* precision : {"fp32", "fp64"}) {
    const std::optional<ComputeCeiling> peak = PeakOf(c, precision);
    if (!peak) continue;
    std::string how = peak->name;
    if (how.starts_with(peak->precision + " ")) how = how.substr(peak->precision.size() + 1);
    out.compute += (out.compute.empty() ? "" : ", ") + peak->precision + " " +
                   FormatNumber(peak->gflops) + " GFLOP/s (" + how + ")";
  }
  for (const MemoryCeiling& m : c.memory) {
    std::string size;
    if (m.size_bytes >= (uint64_t{1} << 20)) {
      size = " to " + FormatNumber(static_cast<double>(m.size_bytes) / (1 << 20)) + " MiB";
    } else if (m.size_bytes > 0) {
      size = " to " + FormatNumber(static_cast<double>(m.size_bytes) / 1024) + " KiB";
    }
    out.memory += (out.memory.empty() ? "" : ", ") + m.level + " " + FormatNumber(m.gbytes_s) +
                  " GB/s" + size;
  }
  return out;
}

std::string EmulatorNote(const std::string& board) {
  if (!board.starts_with("riscv64:0x0-") && !board.starts_with("riscv64:-0-0:")) return "";
  return "the board's RISC-V ids are an emulator's (mvendorid 0 or none, as qemu's): these "
         "ceilings are the emulator's speed on this host, not a board's";
}

}  // namespace ktune::host
