// The measured-result model that agent and host share, and its long-format CSV.
//
// One RepetitionRow is one measured run of one variant (one pass of its events, one
// repetition). On disk and in reports it becomes one CSV line per value, with a fixed header
// (kResultsHeader) whose first column carries the schema version; columns never vary with the
// events requested. Schema 2 added the `sampling` column (1 for the run that sampled, whose
// values are perturbed by the sampling and stay out of statistics); schema 3 the `board` (the
// measuring agent's CpuFingerprint) and `elf_hash` (the ELF's content hash) columns, which with
// the params key a row across the boards of a sharded sweep; schema 4 the `shape` (the problem
// shape the variant ran at, NAME=VALUE;... as params, empty when the run had none). Files of
// schema 1 to 3 still read (with what they lack empty). The agent appends these lines to its
// results file before sending a row; the host writes the same lines as rows arrive.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "common/fs.h"
#include "common/status.h"

namespace ktune {

constexpr int kResultsSchemaVersion = 4;
extern const char* const kResultsHeader;

// perf's vocabulary: a value is counted, or its event could not be opened here ("not
// supported"), or it was opened but never ran on a counter ("not counted"); "missing" is a value
// the workload was expected to print and did not (the kernel's self-reported time). "scaled" is
// an estimate asked for with --multiplex: the count times enabled/running, as perf scales it.
// "partly counted" is a pass's value that lost its counter for part of the run (another perf
// user took it): its raw count is kept but no statistic uses it.
enum class ValueStatus { kOk, kNotSupported, kNotCounted, kMissing, kScaled, kPartial };
const char* ValueStatusName(ValueStatus s);
// Counted, scaled and partly counted values carry a number; the others do not.
inline bool HasValue(ValueStatus s) {
  return s == ValueStatus::kOk || s == ValueStatus::kScaled || s == ValueStatus::kPartial;
}
// The values statistics and metrics use: counted, or scaled when --multiplex asked for it.
inline bool Usable(ValueStatus s) {
  return s == ValueStatus::kOk || s == ValueStatus::kScaled;
}
Result<ValueStatus> ParseValueStatus(std::string_view s);

// Names of the values every repetition carries besides the requested events.
inline constexpr const char* kWallTime = "wall-time";      // ns, CLOCK_MONOTONIC, exec to exit
inline constexpr const char* kKernelTime = "kernel-time";  // s, printed by the kernel itself
inline constexpr const char* kTaskClock = "task-clock";    // ns, perf's software counter
// The machine's state as a repetition starts (read once per round, where the machine has it):
// the measured CPU's current frequency and the hottest thermal zone. They describe the machine,
// not the kernel: reports keep them out of the value columns (host/report/machine_state.h).
inline constexpr const char* kCpuFrequency = "cpu-frequency";  // MHz, cpufreq's scaling_cur_freq
inline constexpr const char* kTemperature = "temperature";     // degrees C, the hottest zone
inline bool IsMachineState(std::string_view name) {
  return name == kCpuFrequency || name == kTemperature;
}

struct MeasuredValue {
  std::string name;
  double value = 0;  // meaningful only when status == kOk
  std::string unit;  // "ns", "s", or "" for a plain count
  uint64_t enabled_ns = 0;
  uint64_t running_ns = 0;
  ValueStatus status = ValueStatus::kOk;
};

// "SIGSEGV" for SIGSEGV; the number, as text, for a signal without a name here.
std::string SignalName(int signal);

// How a run ended.
enum class OutcomeKind { kExited, kSignaled, kTimedOut, kLaunchFailed };
struct Outcome {
  OutcomeKind kind = OutcomeKind::kExited;
  int code = 0;  // exit status, or signal number
  // "exit:0", "signal:SIGSEGV", "timeout", "launch-failed".
  std::string ToString() const;
  static Result<Outcome> Parse(std::string_view s);
};

using Params = std::vector<std::pair<std::string, std::string>>;
// "BLOCK_SIZE_M=4;BLOCK_SIZE_N=16" and back.
std::string FormatParams(const Params& p);
// A parameter FormatParams can keep: a non-empty name without '=' or ';', a value without ';'.
// Any other reads back as other parameters or makes the results file unreadable.
Status ValidateParam(std::string_view name, std::string_view value);
Result<Params> ParseParams(std::string_view s);
// The value of `name` in `p`, or `missing` when it has none.
std::string ParamValue(const Params& p, std::string_view name, const std::string& missing);

// A row's problem shape for people, "M=64 N=64 K=64"; "(no shape)" when it has none.
std::string ShapeLabel(const Params& shape);
// The shape as a directory name, "M=64,N=64,K=64": "" when a name is not letters, digits and '_'
// or a value not digits (a shape read from a file or an agent could name any path otherwise).
std::string ShapeDirName(const Params& shape);

struct RepetitionRow {
  std::string run_id;
  std::string board;         // CpuFingerprint of the agent that measured it
  int64_t timestamp_ns = 0;  // wall-clock (Unix epoch) time the repetition started
  uint32_t variant_index = 0;
  std::string variant;   // the variant's name (its ELF's file name)
  std::string elf;       // the ELF's path inside the bundle
  std::string elf_hash;  // its content hash (common/hash.h)
  Params params;
  Params shape;  // the problem shape it ran at (host/tune/shapes.h); empty: configs.json had none
  uint32_t pass = 0;
  bool sampling = false;  // the run that sampled (--record): kept out of statistics
  uint32_t repetition = 0;
  bool valid = false;  // exited 0 and printed no "NOT OK"
  Outcome outcome;
  std::vector<MeasuredValue> values;

  const MeasuredValue* Find(std::string_view name) const;
};

// The CSV lines for one row, each ending in '\n'.
std::string ToCsvLines(const RepetitionRow& row);

struct ResultsFile {
  std::vector<RepetitionRow> rows;
  size_t torn_lines = 0;  // an unterminated last line, dropped (a writer died mid-line)
};

// Parses a whole results file written by ToCsvLines (header first). A last line without its
// '\n' is counted in torn_lines and not parsed; any other malformed line is an error naming it.
Result<ResultsFile> ParseResultsCsv(std::string_view text);

// How much of a journal's text holds whole repetitions (pure): all of it but an unterminated last
// line (a writer died mid-write) and, when that line may be of the last repetition, that
// repetition's lines too, which the write left in part. The torn line is of the last repetition
// when it starts with the bytes that name it (every line of a repetition starts alike); one too
// short to tell counts as of it, so that the repetition is measured again rather than kept in
// part.
size_t WholeRepetitionsBytes(std::string_view text);

// A results file opened to append rows to, as the agent's journal and khost's copy of a run both
// are: a new or empty file gets the header; an existing one keeps its rows (returned) and loses
// an unterminated last line, which a writer that died mid-row left (that row was never made
// durable, so never sent): the file is cut back to its last complete line before anything is
// appended. With `whole_repetitions` (the agent's journal, whose repetitions the agent measures
// again when they are missing), it is cut back to WholeRepetitionsBytes; khost's copy keeps a
// repetition's whole lines, which the agent's replay completes value by value.
struct ResultsAppend {
  ScopedFd fd;  // O_APPEND
  std::vector<RepetitionRow> rows;
  uint64_t dropped_bytes = 0;  // of what was cut
};
Result<ResultsAppend> OpenResultsForAppend(const std::string& path, bool whole_repetitions);

// Run ids name directories and files on both sides: 1-64 characters from [A-Za-z0-9_.-], not
// starting with '.'.
Status ValidateRunId(const std::string& run_id);

// Identifies a row within its run: which variant, pass and repetition (the sampling run has a
// pass of its own).
using RowKey = std::tuple<uint32_t, uint32_t, uint32_t>;
inline RowKey KeyOf(const RepetitionRow& row) {
  return {row.variant_index, row.pass, row.repetition};
}

}  // namespace ktune
