// Sampling results on the host: the profiles a run's sampling pass produced, kept as
// <run_id>.samples.jsonl beside its results (one JSON object per profile, written as it
// arrives), and their attribution to the functions and instructions of each variant's ELF:
// per event, samples and period by symbol and by instruction, and the total period of the
// kernel's own symbol (<kernel>_kernel), the number the seed took from perf report.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/fs.h"
#include "common/profile.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune::host {

struct ProfileRecord {
  uint32_t variant_index = 0;
  uint32_t pass = 0;
  uint32_t repetition = 0;
  Profile profile;
};

std::string SamplesPath(const std::string& results_path);  // <run_id>.samples.jsonl

// "cycles: No such file or directory" (a Profile's unsupported entry) as people read it:
// "cycles: not supported (No such file or directory)".
std::string NotSupported(const std::string& unsupported);

// Appends profiles to a run's samples file, created when missing. A resumed or fetched run's
// file keeps what it holds (less a torn last line); a repetition's profile it holds already is
// not written twice.
class SamplesWriter {
 public:
  static Result<SamplesWriter> Open(const std::string& path);
  Status Append(const ProfileRecord& record);
  Status Finish();  // fsync
  // Every profile the file holds: those it held when opened, then those appended.
  const std::vector<ProfileRecord>& records() const { return records_; }

 private:
  SamplesWriter(std::string path, ScopedFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  ScopedFd fd_;
  std::set<RowKey> have_;
  std::vector<ProfileRecord> records_;
};

// Every profile of a samples file; a torn last line is ignored. `path` names it in errors.
Result<std::vector<ProfileRecord>> ReadSamples(const std::string& path);
Result<std::vector<ProfileRecord>> ParseSamples(std::string_view text, const std::string& path);

struct SymbolCount {
  std::string symbol;  // "[unknown]" for IPs outside the ELF's functions
  uint64_t samples = 0, period = 0;
};

struct InstructionCount {
  uint64_t addr = 0;  // link-time address in the ELF
  std::string symbol;
  uint64_t samples = 0, period = 0;
};

struct EventSamples {
  std::string event;
  uint64_t samples = 0, period = 0;
  std::vector<SymbolCount> symbols;            // most period first
  std::vector<InstructionCount> instructions;  // most period first
  std::optional<uint64_t> kernel_period;       // of <kernel>_kernel, when the ELF has it
};

struct VariantSamples {
  uint32_t index = 0;
  std::string name;
  std::string elf;
  std::vector<EventSamples> events;
  std::vector<std::string> unsupported;  // "event: reason"
  uint64_t lost = 0;
  uint64_t truncated = 0;
  std::string problem;  // why the IPs could not be attributed (ELF missing or unreadable)
};

// Attributes profiles to functions and instructions. `elves` maps a variant index to its name
// and ELF path (relative to `root`); `kernel_symbol` is <kernel>_kernel.
std::vector<VariantSamples> Symbolize(
    const std::vector<ProfileRecord>& records,
    const std::map<uint32_t, std::pair<std::string, std::string>>& elves, const std::string& root,
    const std::string& kernel_symbol);

// A run's profiles symbolized: `rows` name the variants and their ELFs (relative to `root`).
std::vector<VariantSamples> SymbolizeRun(const std::vector<ProfileRecord>& records,
                                         const std::vector<RepetitionRow>& rows,
                                         const std::string& root, const std::string& kernel_symbol);

// The symbolized samples of the run whose results are at `results_path` (none when it sampled
// nothing). `rows` name the variants and their ELFs.
Result<std::vector<VariantSamples>> LoadRunSamples(const std::string& results_path,
                                                   const std::vector<RepetitionRow>& rows,
                                                   const std::string& root,
                                                   const std::string& kernel_symbol);

}  // namespace ktune::host
