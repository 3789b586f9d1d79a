#include "host/report/perf_stats.h"

#include <time.h>

#include <algorithm>
#include <filesystem>

#include "common/csv.h"
#include "common/fs.h"
#include "common/strings.h"
#include "host/util/format.h"
#include "host/util/user_paths.h"

namespace ktune::host {
namespace {

// The seed's timestamp column: local time to the second.
std::string LocalTime(int64_t unix_ns) {
  const time_t secs = static_cast<time_t>(unix_ns / 1000000000);
  tm local;
  localtime_r(&secs, &local);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &local);
  return buf;
}

}  // namespace

SampledColumns KernelPeriodColumns(const std::vector<VariantSamples>& samples,
                                   const std::string& kernel_symbol) {
  SampledColumns c;
  for (const VariantSamples& v : samples) {
    for (const EventSamples& e : v.events) {
      const std::string name = e.event + " (" + kernel_symbol + " period)";
      if (std::find(c.names.begin(), c.names.end(), name) == c.names.end()) c.names.push_back(name);
    }
  }
  for (const VariantSamples& v : samples) {
    std::vector<std::optional<uint64_t>>& row = c.values[v.index];
    row.assign(c.names.size(), std::nullopt);
    for (const EventSamples& e : v.events) {
      const std::string name = e.event + " (" + kernel_symbol + " period)";
      const size_t at =
          static_cast<size_t>(std::find(c.names.begin(), c.names.end(), name) - c.names.begin());
      row[at] = e.kernel_period;
    }
  }
  return c;
}

std::string RenderPerfStats(const RunReport& report, const SampledColumns& sampled) {
  std::vector<std::string> header = {"Timestamp", "ELF Name"};
  for (const auto& p : report.param_names) header.push_back(p);
  for (const auto& s : report.shape_names) header.push_back(s);
  header.insert(header.end(), {"Valid Output", "Kernel Time (s)", "Total Time (s)"});
  std::vector<std::string> events;
  for (const auto& name : report.value_names) {
    if (name != kWallTime && name != kKernelTime) events.push_back(name);
  }
  header.insert(header.end(), events.begin(), events.end());
  header.insert(header.end(), sampled.names.begin(), sampled.names.end());
  std::string out = CsvJoin(header) + "\n";
  for (const VariantSummary& v : report.variants) {
    std::vector<std::string> r = {LocalTime(v.first_timestamp_ns), v.name};
    for (const auto& p : report.param_names) r.push_back(v.Param(p, "N/A"));
    for (const auto& s : report.shape_names) r.push_back(ParamValue(v.shape, s, "N/A"));
    r.push_back(v.all_valid() ? "YES" : "NO");
    // Nothing measured by a run that failed every time stands in for the kernel's numbers.
    auto find = [&](const std::string& name) { return v.valid ? v.Find(name) : nullptr; };
    const ValueSummary* kernel = find(kKernelTime);
    const ValueSummary* wall = find(kWallTime);
    r.push_back(kernel && kernel->median ? FormatFixed(*kernel->median, 6) : "N/A");
    r.push_back(wall && wall->median ? FormatFixed(*wall->median / 1e9, 6) : "N/A");
    for (const auto& name : events) {
      const ValueSummary* s = find(name);
      if (!s || !s->median) {
        r.push_back("N/A");
      } else if (s->unit == "ns") {
        r.push_back(FormatFixed(*s->median / 1e6, 6));
      } else {
        r.push_back(FormatFixed(*s->median, 0));
      }
    }
    auto periods = sampled.values.find(v.index);
    for (size_t k = 0; k < sampled.names.size(); ++k) {
      const bool has = v.valid && periods != sampled.values.end() && periods->second[k];
      r.push_back(has ? std::to_string(*periods->second[k]) : "N/A");
    }
    out += CsvJoin(r) + "\n";
  }
  return out;
}

Result<std::string> WritePerfStatsFile(const KernelDir& dir, const RunReport& report,
                                       const std::vector<RepetitionRow>& rows,
                                       const std::vector<ProfileRecord>& profiles) {
  if (dir.perf_stat_path.empty()) return std::string();
  KT_RETURN_IF_ERROR(CheckBeneath(dir.root, dir.perf_stat_path));
  const std::string path = dir.root + "/" + dir.perf_stat_path;
  KT_RETURN_IF_ERROR(MakeDirs(std::filesystem::path(path).parent_path().string()));
  const std::string symbol = KernelSymbol(dir.kernel);
  const std::vector<VariantSamples> symbolized = SymbolizeRun(profiles, rows, dir.root, symbol);
  KT_RETURN_IF_ERROR(
      WriteUserFile(path, RenderPerfStats(report, KernelPeriodColumns(symbolized, symbol))));
  return path;
}

Status SomeVariantValid(const RunReport& report, const std::string& results_path) {
  if (report.variants.empty() || std::any_of(report.variants.begin(), report.variants.end(),
                                             [](const VariantSummary& v) { return v.valid > 0; })) {
    return Status::Ok();
  }
  const VariantSummary& first = report.variants.front();
  return InvalidArgument("no variant ran correctly: all " + std::to_string(report.variants.size()) +
                         " failed every repetition (" + first.name + ": " + first.failure +
                         "; khost tune --check runs each variant once); the rows are in " +
                         results_path);
}

}  // namespace ktune::host
