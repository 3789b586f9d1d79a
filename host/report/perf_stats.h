// The seed's perf_stats.csv (configs.json's perf_files.stat) as khost run writes it after a run
// and khost report --format perf-stats prints it: a row per variant, the medians of its values,
// and per sampled event the period of the kernel's own symbol. And what khost run says of a run
// no variant of which ran correctly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/report/report.h"
#include "host/results/kernel_dir.h"
#include "host/results/samples.h"

namespace ktune::host {

// Extra perf-stats columns from sampling, as the seed had them: per sampled event, the total
// period of the kernel's own symbol, named "<event> (<symbol> period)".
struct SampledColumns {
  std::vector<std::string> names;
  std::map<uint32_t, std::vector<std::optional<uint64_t>>> values;  // by variant index
};
SampledColumns KernelPeriodColumns(const std::vector<VariantSamples>& samples,
                                   const std::string& kernel_symbol);

std::string RenderPerfStats(const RunReport& report, const SampledColumns& sampled = {});

// Writes RenderPerfStats of `report`, with the kernel's period from `profiles`, to the file
// configs.json names (dir.perf_stat_path, which must be beneath dir.root; its directory made);
// the path written, "" when configs.json names none.
Result<std::string> WritePerfStatsFile(const KernelDir& dir, const RunReport& report,
                                       const std::vector<RepetitionRow>& rows,
                                       const std::vector<ProfileRecord>& profiles);

// As hyperfine fails for a failing command: a run no variant of which had a valid repetition is
// no success. The error (naming the first variant's failure and `results_path`), or Ok.
Status SomeVariantValid(const RunReport& report, const std::string& results_path);

}  // namespace ktune::host
