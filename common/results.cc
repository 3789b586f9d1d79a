#include "common/results.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>

#include "common/csv.h"
#include "common/strings.h"

namespace ktune {

const char* const kResultsHeader =
    "schema,run_id,board,timestamp_ns,variant_index,variant,elf,elf_hash,params,shape,pass,"
    "sampling,repetition,valid,outcome,name,value,unit,enabled_ns,running_ns,status";

namespace {

constexpr size_t kColumns = 21;
// Schema 3 had no shape column (index 9 in schema 4), schema 2 no board and elf_hash columns
// either (indices 2 and 7), schema 1 no sampling column either (index 11).
constexpr const char* kResultsHeaderV3 =
    "schema,run_id,board,timestamp_ns,variant_index,variant,elf,elf_hash,params,pass,sampling,"
    "repetition,valid,outcome,name,value,unit,enabled_ns,running_ns,status";
constexpr const char* kResultsHeaderV2 =
    "schema,run_id,timestamp_ns,variant_index,variant,elf,params,pass,sampling,repetition,valid,"
    "outcome,name,value,unit,enabled_ns,running_ns,status";
constexpr const char* kResultsHeaderV1 =
    "schema,run_id,timestamp_ns,variant_index,variant,elf,params,pass,repetition,valid,outcome,"
    "name,value,unit,enabled_ns,running_ns,status";

struct NamedSignal {
  int number;
  const char* name;
};
constexpr NamedSignal kSignals[] = {
    {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
    {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
    {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
    {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
};

Result<int> SignalFromString(std::string_view s) {
  for (const auto& sig : kSignals) {
    if (s == sig.name) return sig.number;
  }
  return ParseInt(s);
}

std::string FormatValue(const MeasuredValue& v) {
  if (!HasValue(v.status)) return "";
  return FormatDouble(v.value);
}

// Takes the next complete line off *text; none when what is left has no line end (torn).
std::optional<std::string_view> NextLine(std::string_view* text) {
  const size_t nl = text->find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  std::string_view line = text->substr(0, nl);
  text->remove_prefix(nl + 1);
  return line;
}

// Sets *version from a results header, of any schema read.
Status ParseHeader(std::string_view line, int* version) {
  if (line == kResultsHeader) {
    *version = kResultsSchemaVersion;
  } else if (line == kResultsHeaderV3) {
    *version = 3;
  } else if (line == kResultsHeaderV2) {
    *version = 2;
  } else if (line == kResultsHeaderV1) {
    *version = 1;
  } else {
    return InvalidArgument("not a ktune results header (schema 1 to " +
                           std::to_string(kResultsSchemaVersion) + ")");
  }
  return Status::Ok();
}

// Checks a row's column count for the schema its first column names and puts it in the current
// schema's columns: what it lacks is empty (never sampled, for schema 1). Each line says its own
// schema: a file may hold lines of two (a run resumed by a newer khost or agentd appends its own).
Status ToCurrentColumns(std::vector<std::string>* f) {
  const Result<int> version = f->empty() ? InvalidArgument("") : ParseInt((*f)[0]);
  if (!version.ok() || *version < 1 || *version > kResultsSchemaVersion) {
    return InvalidArgument("schema " + (f->empty() ? std::string() : (*f)[0]));
  }
  const size_t lacking = *version == 1 ? 4 : *version == 2 ? 3 : *version == 3 ? 1 : 0;
  if (f->size() != kColumns - lacking) {
    return InvalidArgument("expected " + std::to_string(kColumns - lacking) + " columns, found " +
                           std::to_string(f->size()));
  }
  if (*version == 1) f->insert(f->begin() + 8, "0");  // sampling
  if (*version <= 2) {
    f->insert(f->begin() + 6, "");  // elf_hash
    f->insert(f->begin() + 2, "");  // board
  }
  if (*version <= 3) f->insert(f->begin() + 9, "");  // shape
  return Status::Ok();
}

// The first of `statuses` that is an error, else Ok.
Status FirstError(std::initializer_list<const Status*> statuses) {
  for (const Status* s : statuses) {
    if (!s->ok()) return *s;
  }
  return Status::Ok();
}

// A 0/1 column.
Result<bool> ParseFlag(const std::string& field, const char* name) {
  if (field != "0" && field != "1") return InvalidArgument(std::string(name) + " must be 0 or 1");
  return field == "1";
}

// The repetition a row belongs to, without its values.
Result<RepetitionRow> ParseRowKey(const std::vector<std::string>& f) {
  RepetitionRow key;
  key.run_id = f[1];
  key.board = f[2];
  auto ts = ParseInt64(f[3]);
  auto vi = ParseUint64(f[4]);
  auto params = ParseParams(f[8]);
  auto shape = ParseParams(f[9]);
  auto pass = ParseUint64(f[10]);
  auto rep = ParseUint64(f[12]);
  auto outcome = Outcome::Parse(f[14]);
  KT_RETURN_IF_ERROR(FirstError({&ts.status(), &vi.status(), &params.status(), &shape.status(),
                                 &pass.status(), &rep.status(), &outcome.status()}));
  key.timestamp_ns = *ts;
  key.variant_index = static_cast<uint32_t>(*vi);
  key.variant = f[5];
  key.elf = f[6];
  key.elf_hash = f[7];
  key.params = std::move(params).value();
  key.shape = std::move(shape).value();
  key.pass = static_cast<uint32_t>(*pass);
  KT_ASSIGN_OR_RETURN(key.sampling, ParseFlag(f[11], "sampling"));
  key.repetition = static_cast<uint32_t>(*rep);
  KT_ASSIGN_OR_RETURN(key.valid, ParseFlag(f[13], "valid"));
  key.outcome = *outcome;
  return key;
}

// How many fields of a row line are its value's: the last ones, in every version of the file.
constexpr size_t kValueFields = 6;

// A row's value from its fields: name, value, unit, enabled, running, status.
Result<MeasuredValue> ParseRowValue(const std::string* f) {
  MeasuredValue v;
  v.name = f[0];
  v.unit = f[2];
  auto status = ParseValueStatus(f[5]);
  auto enabled = ParseUint64(f[3]);
  auto running = ParseUint64(f[4]);
  KT_RETURN_IF_ERROR(FirstError({&status.status(), &enabled.status(), &running.status()}));
  v.status = *status;
  v.enabled_ns = *enabled;
  v.running_ns = *running;
  if (HasValue(v.status)) {
    KT_ASSIGN_OR_RETURN(v.value, ParseDouble(f[1]));
  }
  return v;
}

// The bytes of a row line that name its repetition: its fields but the value's (the last six),
// with the comma after them. ToCsvLines writes them alike on every line of a repetition. The
// whole line when it does not parse.
size_t RepetitionPrefixBytes(std::string_view line) {
  const Result<std::vector<std::string>> f = CsvSplit(line);
  if (!f.ok() || f->size() < 7) return line.size();
  return CsvJoin(std::vector<std::string>(f->begin(), f->end() - 6)).size() + 1;
}

bool SameRepetition(const RepetitionRow& a, const RepetitionRow& b) {
  return a.run_id == b.run_id && a.variant_index == b.variant_index && a.pass == b.pass &&
         a.sampling == b.sampling && a.repetition == b.repetition;
}

// One row line: its value joins the last repetition when the row is of that repetition, else
// starts a new one. `key_bytes`: the bytes of the line before that added the last row's value,
// up to its value's fields (with the comma before them); "" before the first. A line that starts
// with the same bytes has the same key fields, which split and parse as they did there (a split
// reads left to right), so only its value's fields are read: the other lines of a repetition,
// one per event, cost a sixth of the first.
Status AddLine(std::string_view line, ResultsFile* file, std::string_view* key_bytes) {
  if (!key_bytes->empty() && line.starts_with(*key_bytes)) {
    const auto value = CsvSplit(line.substr(key_bytes->size()));
    if (value.ok() && value->size() == kValueFields) {
      KT_ASSIGN_OR_RETURN(MeasuredValue v, ParseRowValue(value->data()));
      file->rows.back().values.push_back(std::move(v));
      return Status::Ok();
    }
  }
  std::vector<size_t> starts;
  KT_ASSIGN_OR_RETURN(std::vector<std::string> f, CsvSplit(line, &starts));
  const size_t split_fields = f.size();
  KT_RETURN_IF_ERROR(ToCurrentColumns(&f));
  KT_ASSIGN_OR_RETURN(RepetitionRow key, ParseRowKey(f));
  KT_ASSIGN_OR_RETURN(MeasuredValue v, ParseRowValue(f.data() + f.size() - kValueFields));
  if (file->rows.empty() || !SameRepetition(file->rows.back(), key)) {
    file->rows.push_back(std::move(key));
  }
  file->rows.back().values.push_back(std::move(v));
  *key_bytes = line.substr(0, starts[split_fields - kValueFields]);
  return Status::Ok();
}

}  // namespace

std::string SignalName(int signal) {
  for (const auto& s : kSignals) {
    if (s.number == signal) return s.name;
  }
  return std::to_string(signal);
}

const char* ValueStatusName(ValueStatus s) {
  switch (s) {
    case ValueStatus::kOk:
      return "ok";
    case ValueStatus::kNotSupported:
      return "not supported";
    case ValueStatus::kNotCounted:
      return "not counted";
    case ValueStatus::kMissing:
      return "missing";
    case ValueStatus::kScaled:
      return "scaled";
    case ValueStatus::kPartial:
      return "partly counted";
  }
  return "?";
}

Result<ValueStatus> ParseValueStatus(std::string_view s) {
  for (ValueStatus v : {ValueStatus::kOk, ValueStatus::kNotSupported, ValueStatus::kNotCounted,
                        ValueStatus::kMissing, ValueStatus::kScaled, ValueStatus::kPartial}) {
    if (s == ValueStatusName(v)) return v;
  }
  return InvalidArgument("unknown value status '" + std::string(s) + "'");
}

std::string Outcome::ToString() const {
  switch (kind) {
    case OutcomeKind::kExited:
      return "exit:" + std::to_string(code);
    case OutcomeKind::kSignaled:
      return "signal:" + SignalName(code);
    case OutcomeKind::kTimedOut:
      return "timeout";
    case OutcomeKind::kLaunchFailed:
      return "launch-failed";
  }
  return "?";
}

Result<Outcome> Outcome::Parse(std::string_view s) {
  Outcome o;
  if (s == "timeout") {
    o.kind = OutcomeKind::kTimedOut;
  } else if (s == "launch-failed") {
    o.kind = OutcomeKind::kLaunchFailed;
  } else if (s.starts_with("exit:")) {
    o.kind = OutcomeKind::kExited;
    KT_ASSIGN_OR_RETURN(o.code, ParseInt(s.substr(5)));
  } else if (s.starts_with("signal:")) {
    o.kind = OutcomeKind::kSignaled;
    KT_ASSIGN_OR_RETURN(o.code, SignalFromString(s.substr(7)));
  } else {
    return InvalidArgument("unknown outcome '" + std::string(s) + "'");
  }
  return o;
}

std::string FormatParams(const Params& p) {
  std::string out;
  for (const auto& [k, v] : p) {
    if (!out.empty()) out += ';';
    out += k + "=" + v;
  }
  return out;
}

Status ValidateParam(std::string_view name, std::string_view value) {
  if (name.empty() || name.find_first_of("=;") != std::string_view::npos ||
      value.find(';') != std::string_view::npos) {
    return InvalidArgument("parameter '" + std::string(name) + "' = '" + std::string(value) +
                           "': a name must be non-empty without '=' or ';', a value without ';'");
  }
  return Status::Ok();
}

Result<Params> ParseParams(std::string_view s) {
  Params p;
  if (s.empty()) return p;
  for (std::string_view item : Split(s, ';')) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument("malformed parameter '" + std::string(item) + "'");
    }
    p.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
  }
  return p;
}

std::string ParamValue(const Params& p, std::string_view name, const std::string& missing) {
  for (const auto& [k, v] : p) {
    if (k == name) return v;
  }
  return missing;
}

std::string ShapeLabel(const Params& shape) {
  if (shape.empty()) return "(no shape)";
  std::string label;
  for (const auto& [name, value] : shape) label += (label.empty() ? "" : " ") + name + "=" + value;
  return label;
}

std::string ShapeDirName(const Params& shape) {
  auto only = [](const std::string& s, bool letters) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
      return (c >= '0' && c <= '9') ||
             (letters && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'));
    });
  };
  std::string dir;
  for (const auto& [name, value] : shape) {
    if (!only(name, true) || !only(value, false)) return "";
    dir += (dir.empty() ? "" : ",") + name + "=" + value;
  }
  return dir;
}

const MeasuredValue* RepetitionRow::Find(std::string_view name) const {
  for (const auto& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::string ToCsvLines(const RepetitionRow& row) {
  std::string out;
  const std::vector<std::string> prefix = {std::to_string(kResultsSchemaVersion),
                                           row.run_id,
                                           row.board,
                                           std::to_string(row.timestamp_ns),
                                           std::to_string(row.variant_index),
                                           row.variant,
                                           row.elf,
                                           row.elf_hash,
                                           FormatParams(row.params),
                                           FormatParams(row.shape),
                                           std::to_string(row.pass),
                                           row.sampling ? "1" : "0",
                                           std::to_string(row.repetition),
                                           row.valid ? "1" : "0",
                                           row.outcome.ToString()};
  const std::string joined_prefix = CsvJoin(prefix);
  for (const auto& v : row.values) {
    out += joined_prefix;
    out += ',';
    out += CsvJoin({v.name, FormatValue(v), v.unit, std::to_string(v.enabled_ns),
                    std::to_string(v.running_ns), ValueStatusName(v.status)});
    out += '\n';
  }
  return out;
}

Result<ResultsFile> ParseResultsCsv(std::string_view text) {
  ResultsFile file;
  size_t line_no = 0;
  int version = 0;             // 0 until the header is read
  std::string_view key_bytes;  // AddLine's
  while (!text.empty()) {
    const std::optional<std::string_view> line = NextLine(&text);
    if (!line) {
      ++file.torn_lines;
      break;
    }
    ++line_no;
    const Status parsed =
        version == 0 ? ParseHeader(*line, &version) : AddLine(*line, &file, &key_bytes);
    if (!parsed.ok()) {
      return InvalidArgument("results line " + std::to_string(line_no) + ": " + parsed.message());
    }
  }
  if (version == 0 && file.torn_lines == 0) return InvalidArgument("results file is empty");
  return file;
}

size_t WholeRepetitionsBytes(std::string_view text) {
  const size_t end = text.rfind('\n') + 1;  // 0 without a whole line
  const std::string_view torn = text.substr(end);
  if (torn.empty() || end < 2) return end;
  const size_t last = text.rfind('\n', end - 2) + 1;
  const std::string_view line = text.substr(last, end - 1 - last);
  const size_t prefix = RepetitionPrefixBytes(line);
  // Where the torn line first differs from the last whole one: before the prefix's end, it is of
  // another repetition. Ending before then, it cannot tell, and counts as the same one.
  const size_t same = static_cast<size_t>(
      std::mismatch(torn.begin(), torn.end(), line.begin(), line.end()).first - torn.begin());
  if (same < std::min(prefix, torn.size())) return end;
  // The last repetition's lines: those, before the torn one, that start as the last whole one.
  size_t start = last;
  while (start > 1) {
    const size_t before = text.rfind('\n', start - 2) + 1;
    if (text.substr(before, std::min(prefix, start - before)) != line.substr(0, prefix)) break;
    start = before;
  }
  return start;
}

Result<ResultsAppend> OpenResultsForAppend(const std::string& path, bool whole_repetitions) {
  KT_ASSIGN_OR_RETURN(LinesAppend file, OpenLinesForAppend(path));
  ResultsAppend out{std::move(file.fd), {}, file.dropped_bytes};
  if (whole_repetitions && !file.torn.empty()) {
    const size_t keep = WholeRepetitionsBytes(file.text + file.torn);
    if (keep < file.text.size()) {
      out.dropped_bytes += file.text.size() - keep;
      file.text.resize(keep);
      if (::ftruncate(out.fd.get(), static_cast<off_t>(keep)) != 0) {
        return ErrnoError("truncate " + path, errno);
      }
    }
  }
  if (file.text.empty()) {  // new, or its header was torn
    KT_RETURN_IF_ERROR(WriteAll(out.fd.get(), std::string(kResultsHeader) + "\n", path));
  } else {
    auto parsed = ParseResultsCsv(file.text);
    if (!parsed.ok()) return parsed.status().WithContext(path);
    out.rows = std::move(parsed->rows);
  }
  if (::fdatasync(out.fd.get()) != 0) return ErrnoError("fsync " + path, errno);
  return out;
}

Status ValidateRunId(const std::string& run_id) {
  if (run_id.empty() || run_id.size() > 64 || run_id[0] == '.') {
    return InvalidArgument("invalid run id '" + run_id + "'");
  }
  for (char c : run_id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return InvalidArgument("invalid run id '" + run_id + "'");
  }
  return Status::Ok();
}

}  // namespace ktune
