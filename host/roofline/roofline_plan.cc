#include "host/roofline/roofline_plan.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <optional>

#include "common/strings.h"

namespace ktune::host {

VectorWidths WidthsOf(const Toolchain& t, const std::string& host_arch) {
  std::string march;
  for (const std::string& f : t.target_flags) {
    if (f.starts_with("-march=")) march = f.substr(7);
  }
  if (t.processor == "riscv64") {
    // rv64gcv..._zvl256b: V among the single-letter extensions, VLEN from zvl<N>b.
    const std::string base = march.substr(0, march.find('_'));
    const size_t zvl = march.find("_zvl");
    if (base.starts_with("rv64") && base.find('v', 4) != std::string::npos &&
        zvl != std::string::npos) {
      const int vlen = std::atoi(march.c_str() + zvl + 4);
      if (vlen >= 64) return {vlen / 8, vlen, "RVV, VLEN " + std::to_string(vlen)};
    }
    return {0, 0, "no vectors"};
  }
  if (t.processor.empty() && host_arch == "x86_64") return {16, 32, "x86-64 AVX2"};
  return {0, 0, "no vectors"};
}

Result<std::vector<std::string>> BandwidthShapes(uint64_t min_bytes, uint64_t max_bytes,
                                                 uint64_t bytes_per_call, int threads) {
  const uint64_t low = std::bit_floor(std::max<uint64_t>(min_bytes, 4096));
  const uint64_t high = std::bit_floor(std::max<uint64_t>(max_bytes, 1));
  if (high < low) {
    return InvalidArgument("the largest working set (" + std::to_string(max_bytes) +
                           " bytes) is below the smallest (" + std::to_string(low) + ")");
  }
  const uint64_t per = static_cast<uint64_t>(std::max(threads, 1));
  std::vector<std::string> out;
  for (uint64_t size = low; size <= high; size *= 2) {
    const uint64_t n = size / 8 / per / 16 * 16;
    if (n == 0) continue;
    const uint64_t sweeps = std::max<uint64_t>(1, bytes_per_call / size);
    out.push_back("N=" + std::to_string(n) + " SWEEPS=" + std::to_string(sweeps) +
                  " THREADS=" + std::to_string(per) + " RUN_COUNT=1");
  }
  if (out.empty()) {
    return InvalidArgument("no working set up to " + std::to_string(high) + " bytes holds 16 " +
                           "doubles for each of " + std::to_string(per) + " threads");
  }
  return out;
}

namespace {

// A cache word's size: "32K" -> 32768; nullopt when it is not a number with K, M, G or no unit.
std::optional<uint64_t> CacheBytes(std::string_view size) {
  uint64_t scale = 1;
  if (!size.empty() && (size.back() == 'K' || size.back() == 'M' || size.back() == 'G')) {
    scale = uint64_t{1} << (size.back() == 'K' ? 10 : size.back() == 'M' ? 20 : 30);
    size.remove_suffix(1);
  }
  const auto n = ParseUint64(size);
  if (!n.ok() || *n == 0 || *n > (uint64_t{1} << 40) / scale) return std::nullopt;
  return *n * scale;
}

}  // namespace

SweepLimit SweepLimitOf(uint64_t asked_bytes, const std::optional<std::string>& caches) {
  if (asked_bytes) return {asked_bytes, "--max-size"};
  std::string last;
  uint64_t last_bytes = 0;
  for (const std::string& word : SplitWords(caches.value_or(""))) {
    const size_t colon = word.find(':');
    if (colon == std::string::npos || word[0] != 'L') continue;
    std::string name = word.substr(0, colon);
    if (name.back() == 'i') continue;  // instructions: not what the streams load
    if (name.back() == 'd') name.pop_back();
    if (!ParseUint64(std::string_view(name).substr(1)).ok()) continue;
    const std::optional<uint64_t> bytes = CacheBytes(std::string_view(word).substr(colon + 1));
    if (bytes && *bytes >= last_bytes) {
      last = name;
      last_bytes = *bytes;
    }
  }
  if (!last_bytes) return {kDefaultSweepBytes, "the board lists no caches"};
  return {std::bit_ceil(4 * last_bytes),
          "4 x " + last + " (" + std::to_string(last_bytes >> 10) + " KiB)"};
}

namespace {

// A variant's integer parameter, or an error naming it; `fallback` when it has none, if given.
Result<int64_t> IntParam(const VariantSummary& v, const Params& of, const std::string& name,
                         std::optional<int64_t> fallback = std::nullopt) {
  for (const auto& [k, value] : of) {
    if (k == name) return ParseInt64(value);
  }
  if (fallback) return *fallback;
  return InvalidArgument(v.name + " has no " + name);
}

// Its fastest repetition's time per call, in seconds (why the fastest: CeilingsOf in the
// header); none when it has none.
std::optional<double> FastestSecondsOf(const VariantSummary& v, const std::string& by) {
  const ValueSummary* t = v.Find(by);
  if (!t || !t->min || !(*t->min > 0)) return std::nullopt;
  return *t->min * (t->unit == "ns" ? 1e-9 : 1);
}

Status ComputeCeilings(const RunReport& flops, Ceilings& out) {
  for (const VariantSummary& v : flops.variants) {
    const std::optional<double> s = FastestSecondsOf(v, flops.best_by);
    if (!v.all_valid() || !s) continue;
    if (!v.work.flops) return InvalidArgument(v.name + " declares no flops");
    KT_ASSIGN_OR_RETURN(const int64_t prec, IntParam(v, v.params, "PREC"));
    KT_ASSIGN_OR_RETURN(const int64_t width, IntParam(v, v.params, "WIDTH"));
    const std::string precision = "fp" + std::to_string(prec);
    out.compute.push_back(
        {precision + (width == 0 ? " scalar" : " vector " + std::to_string(width) + " B"),
         precision, *v.work.flops / *s / 1e9});
  }
  return Status::Ok();
}

constexpr const char* kStreams[] = {"read", "write", "copy", "triad"};
// Each OP of the microkernel (kernels/roofline/roofline_bandwidth_kernel.c): its stream, an index
// into kStreams, and the arrays it touches. OP 4 is read in the loop with software prefetch.
struct OpOf {
  size_t stream;
  int arrays;
};
constexpr OpOf kOps[] = {{0, 1}, {1, 1}, {2, 2}, {3, 3}, {0, 1}};

// `points` sorted by working set, one per working set: the fastest of those measured there (read's
// two loops; neither is the faster at every level, and a ceiling is the best the board reaches).
void KeepBestPerSize(std::vector<BandwidthPoint>& points) {
  std::sort(points.begin(), points.end(), [](const BandwidthPoint& a, const BandwidthPoint& b) {
    return a.bytes < b.bytes || (a.bytes == b.bytes && a.gbytes_s > b.gbytes_s);
  });
  points.erase(std::unique(points.begin(), points.end(),
                           [](const BandwidthPoint& a, const BandwidthPoint& b) {
                             return a.bytes == b.bytes;
                           }),
               points.end());
}

}  // namespace

Result<MeasuredCeilings> CeilingsOf(const RunReport& flops, const RunReport& bandwidth) {
  MeasuredCeilings m;
  KT_RETURN_IF_ERROR(ComputeCeilings(flops, m.ceilings));
  for (const char* name : kStreams) m.streams.push_back({name, {}});
  for (const VariantSummary& v : bandwidth.variants) {
    const std::optional<double> s = FastestSecondsOf(v, bandwidth.best_by);
    if (!v.all_valid() || !s) continue;
    if (!v.work.bytes) return InvalidArgument(v.name + " declares no bytes");
    KT_ASSIGN_OR_RETURN(const int64_t op, IntParam(v, v.params, "OP"));
    KT_ASSIGN_OR_RETURN(const int64_t n, IntParam(v, v.shape, "N"));
    KT_ASSIGN_OR_RETURN(const int64_t threads, IntParam(v, v.shape, "THREADS", 1));
    if (op < 0 || op >= static_cast<int64_t>(std::size(kOps))) {
      return InvalidArgument(v.name + ": OP " + std::to_string(op));
    }
    const OpOf& of = kOps[op];
    m.streams[of.stream].points.push_back(
        {static_cast<double>(n) * 8 * of.arrays * static_cast<double>(threads),
         *v.work.bytes / *s / 1e9});
  }
  if (m.ceilings.compute.empty()) {
    return NotFound("no variant of roofline_flops ran to the end (khost report " + flops.run_id +
                    " says why)");
  }
  bool any = false;
  for (StreamCurve& c : m.streams) any = any || !c.points.empty();
  if (!any) {
    return NotFound("no variant of roofline_bandwidth ran to the end (khost report " +
                    bandwidth.run_id + " says why)");
  }
  for (StreamCurve& c : m.streams) {
    KeepBestPerSize(c.points);
    m.stream_levels.push_back(LevelsFromCurve(c.points));
  }
  m.ceilings.memory = m.stream_levels.front();
  return m;
}

std::vector<CeilingRow> CeilingRowsOf(const MeasuredCeilings& m, const RunIds& runs,
                                      int64_t measured_ns) {
  std::vector<CeilingRow> out;
  for (const ComputeCeiling& c : m.ceilings.compute) {
    out.push_back({"compute", c.name, c.precision, 0, c.gflops, runs.flops, measured_ns});
  }
  const auto level = [&](const std::string& kind, const std::string& prefix,
                         const MemoryCeiling& l) {
    out.push_back({kind, prefix + l.level, "", static_cast<int64_t>(l.size_bytes), l.gbytes_s,
                   runs.bandwidth, measured_ns});
  };
  for (const MemoryCeiling& l : m.ceilings.memory) level("memory", "", l);
  for (size_t s = 0; s < m.streams.size() && s < m.stream_levels.size(); ++s) {
    for (const MemoryCeiling& l : m.stream_levels[s]) level("stream", m.streams[s].stream + " ", l);
  }
  return out;
}

Ceilings CeilingsFromRows(const std::vector<CeilingRow>& rows) {
  Ceilings c;
  for (const CeilingRow& r : rows) {
    if (r.kind == "compute") c.compute.push_back({r.name, r.precision, r.value});
    if (r.kind == "memory") {
      c.memory.push_back({r.name, static_cast<uint64_t>(r.size_bytes), r.value});
    }
  }
  return c;
}

}  // namespace ktune::host
