#include "host/results/results_dir.h"

#include <fcntl.h>
#include <sodium.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "common/fs.h"
#include "common/strings.h"
#include "host/util/json_integer.h"

namespace ktune::host {
namespace fs = std::filesystem;

std::string NewRunId() {
  const std::string when = UtcNowText(/*compact=*/true);
  if (sodium_init() < 0) return when;
  char rnd[8];
  std::snprintf(rnd, sizeof rnd, "%06x", randombytes_uniform(1u << 24));
  return when + "-" + rnd;
}

std::string ResultsDir(const std::string& kernel_run_dir) {
  return kernel_run_dir + "/results";
}

std::string ResultsPath(const std::string& kernel_run_dir, const std::string& run_id) {
  return ResultsDir(kernel_run_dir) + "/" + run_id + ".csv";
}

namespace {

// A sampling row in a counting row's pass (the sampling run has a pass of its own, but an agent
// could say otherwise) is another measurement: its values are not the counting run's, and the
// file's readers (ParseResultsCsv) tell its lines apart by `sampling`. So is a row of another
// board, ELF (its hash), variant, parameters or shape under the same key: its values were not
// measured on what the row's were.
bool SameMeasurement(const RepetitionRow& a, const RepetitionRow& b) {
  return a.timestamp_ns == b.timestamp_ns && a.valid == b.valid && a.sampling == b.sampling &&
         a.outcome.ToString() == b.outcome.ToString() && a.board == b.board &&
         a.elf_hash == b.elf_hash && a.variant == b.variant && a.elf == b.elf &&
         a.params == b.params && a.shape == b.shape;
}

}  // namespace

MergedRows MergeRepetitions(const std::vector<RepetitionRow>& rows) {
  MergedRows out;
  std::map<std::pair<std::string, RowKey>, size_t> index;
  size_t line = 1;  // the header
  for (const RepetitionRow& row : rows) {
    auto [it, fresh] = index.emplace(std::make_pair(row.run_id, KeyOf(row)), out.rows.size());
    if (fresh) {
      out.rows.push_back(row);
      out.rows.back().values.clear();
    }
    RepetitionRow& into = out.rows[it->second];
    const bool same = fresh || SameMeasurement(into, row);
    for (const MeasuredValue& v : row.values) {
      ++line;
      if (same && !into.Find(v.name)) {
        into.values.push_back(v);
        continue;
      }
      if (out.duplicate_lines++ == 0) out.first_duplicate_line = line;
    }
  }
  return out;
}

Result<ResultsWriter> ResultsWriter::Open(const std::string& path) {
  KT_RETURN_IF_ERROR(MakeDirs(fs::path(path).parent_path().string()));
  KT_ASSIGN_OR_RETURN(ResultsAppend file, OpenResultsForAppend(path, /*whole_repetitions=*/false));
  return ResultsWriter(path, std::move(file));
}

ResultsWriter::ResultsWriter(std::string path, ResultsAppend file)
    : path_(std::move(path)), fd_(std::move(file.fd)), dropped_bytes_(file.dropped_bytes) {
  MergedRows merged = MergeRepetitions(file.rows);  // the readers say what was dropped
  rows_ = std::move(merged.rows);
  duplicate_lines_ = merged.duplicate_lines;
  first_duplicate_line_ = merged.first_duplicate_line;
  for (size_t i = 0; i < rows_.size(); ++i)
    index_.emplace(std::make_pair(rows_[i].run_id, KeyOf(rows_[i])), i);
}

Result<ResultsWriter::Stored> ResultsWriter::Append(const RepetitionRow& row) {
  const auto key = std::make_pair(row.run_id, KeyOf(row));
  const auto it = index_.find(key);
  if (it == index_.end()) {
    KT_RETURN_IF_ERROR(WriteAll(fd_.get(), ToCsvLines(row), path_));
    index_.emplace(key, rows_.size());
    rows_.push_back(row);
    return Stored::kNew;
  }
  RepetitionRow& held = rows_[it->second];
  RepetitionRow lacking = row;
  lacking.values.clear();
  for (const MeasuredValue& v : row.values) {
    if (!held.Find(v.name)) lacking.values.push_back(v);
  }
  if (lacking.values.empty()) return Stored::kHeld;  // whole, whichever measurement it is
  if (!SameMeasurement(held, row)) return Stored::kConflicting;
  KT_RETURN_IF_ERROR(WriteAll(fd_.get(), ToCsvLines(lacking), path_));
  held.values.insert(held.values.end(), lacking.values.begin(), lacking.values.end());
  return Stored::kCompleted;
}

Status ResultsWriter::Finish() {
  if (::fdatasync(fd_.get()) != 0) return ErrnoError("fsync " + path_, errno);
  return FsyncDirectory(fs::path(path_).parent_path().string());
}

std::string ShardRunId(const std::string& run_id, size_t n) {
  return run_id + "_" + std::to_string(n);
}

std::string RunOfShard(const std::string& id) {
  const size_t cut = id.rfind('_');
  if (cut == std::string::npos || cut + 1 == id.size()) return id;
  for (size_t i = cut + 1; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9') return id;
  }
  return id.substr(0, cut);
}

std::string RunRequestPath(const std::string& results_path) {
  return fs::path(results_path).replace_extension(".request.pb").string();
}

std::string RunMetaPath(const std::string& results_path) {
  return fs::path(results_path).replace_extension(".json").string();
}

namespace {

// The system check as JSON: its known fields only.
nlohmann::ordered_json SystemJson(const SystemCheck& c) {
  nlohmann::ordered_json j;
  j["cpu"] = c.cpu;
  ForEachOptional(
      [&j](const char* name, const auto& field) {
        if (field) j[name] = *field;
      },
      c);
  j["thermal_zones"] = nlohmann::ordered_json::array();
  for (const ThermalZone& z : c.thermal_zones) {
    nlohmann::ordered_json jz = {{"type", z.type}};
    if (z.temp_mc) jz["temp_mc"] = *z.temp_mc;
    j["thermal_zones"].push_back(jz);
  }
  return j;
}

SystemCheck SystemFromJson(const nlohmann::json& j) {
  SystemCheck c;
  c.cpu = JsonInteger<int>(j.at("cpu"));
  ForEachOptional(
      [&j](const char* name, auto& field) {
        using Value = typename std::decay_t<decltype(field)>::value_type;
        if (!j.contains(name)) return;
        if constexpr (std::is_integral_v<Value> && !std::is_same_v<Value, bool>) {
          field = JsonInteger<Value>(j.at(name));
        } else {
          field = j.at(name).get<Value>();
        }
      },
      c);
  for (const auto& z : j.value("thermal_zones", nlohmann::json::array())) {
    ThermalZone zone{z.at("type").get<std::string>(), std::nullopt};
    if (z.contains("temp_mc")) zone.temp_mc = JsonInteger<int64_t>(z.at("temp_mc"));
    c.thermal_zones.push_back(std::move(zone));
  }
  return c;
}

}  // namespace

std::string RunMetaJson(const RunMeta& meta) {
  nlohmann::ordered_json j;
  j["schema"] = 1;
  j["run_id"] = meta.run_id;
  j["kernel"] = meta.kernel;
  j["agent"] = meta.agent;
  j["cpu"] = meta.cpu;
  j["core"] = meta.core;
  j["requested"] = meta.requested;
  j["order"] = meta.order;
  j["seed"] = meta.seed;
  if (meta.adaptive) {
    j["adaptive"] = {{"min_reps", meta.adaptive->min_reps},
                     {"max_reps", meta.adaptive->max_reps},
                     {"target_ci", meta.adaptive->target_ci}};
  }
  j["cooldown_ms"] = meta.cooldown_ms;
  j["max_temp_mc"] = meta.max_temp_mc;
  j["events"] = meta.events;
  j["metrics"] = nlohmann::ordered_json::array();
  for (const auto& m : meta.metrics) {
    j["metrics"].push_back({{"name", m.name}, {"formula", m.formula}, {"group", m.group}});
  }
  j["passes"] = meta.passes;
  j["plan"] = meta.plan;
  j["complete"] = meta.complete;
  if (meta.system) j["system"] = SystemJson(*meta.system);
  if (!meta.shards.empty()) {
    j["agents"] = meta.agents;
    j["shards"] = nlohmann::ordered_json::array();
    for (const auto& s : meta.shards) {
      j["shards"].push_back(
          {{"id", s.id}, {"variants", s.variants}, {"agent", s.agent}, {"state", s.state}});
    }
  }
  if (!meta.method.empty()) j["method"] = meta.method;
  if (!meta.inputs.empty()) {
    j["inputs"] = nlohmann::ordered_json::array();
    for (const auto& in : meta.inputs) {
      nlohmann::ordered_json one = {{"args", in.args}, {"test_data_hash", in.test_data_hash}};
      if (in.work.flops) one["flops"] = *in.work.flops;
      if (in.work.bytes) one["bytes"] = *in.work.bytes;
      j["inputs"].push_back(std::move(one));
    }
  }
  if (!meta.build.empty()) j["build"] = meta.build;
  if (!meta.reused.empty()) {
    j["reused"] = nlohmann::ordered_json::array();
    for (const auto& r : meta.reused) {
      j["reused"].push_back(
          {{"variant", r.variant}, {"run_id", r.run_id}, {"measured_ns", r.measured_ns}});
    }
  }
  // Text from the agent (its plan, the events it echoes, a fetched run's request) need not be
  // UTF-8, which JSON text must be: such bytes become U+FFFD, as in the samples file.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Status WriteRunMeta(const std::string& path, const RunMeta& meta) {
  return WriteFileAtomic(path, RunMetaJson(meta));
}

Result<RunMeta> ReadRunMeta(const std::string& path) {
  KT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseRunMeta(text, path);
}

Result<RunMeta> ParseRunMeta(const std::string& text, const std::string& where) {
  try {
    const auto j = nlohmann::json::parse(text);
    RunMeta meta;
    meta.run_id = j.at("run_id").get<std::string>();
    meta.kernel = j.at("kernel").get<std::string>();
    meta.agent = j.at("agent").get<std::string>();
    meta.cpu = j.at("cpu").get<std::string>();
    meta.core = j.at("core").get<std::string>();
    meta.requested = j.at("requested").get<std::vector<std::string>>();
    meta.order = j.value("order", std::string("sequential"));
    meta.seed = JsonInteger(j, "seed", uint64_t{0});
    if (j.contains("adaptive")) {
      const auto& a = j.at("adaptive");
      meta.adaptive =
          RacingOptions{JsonInteger<uint32_t>(a.at("min_reps")),
                        JsonInteger<uint32_t>(a.at("max_reps")), a.at("target_ci").get<double>()};
    }
    meta.cooldown_ms = JsonInteger(j, "cooldown_ms", uint64_t{0});
    meta.max_temp_mc = JsonInteger(j, "max_temp_mc", int64_t{0});
    meta.events = j.at("events").get<std::vector<std::string>>();
    for (const auto& m : j.at("metrics")) {
      meta.metrics.push_back({m.at("name").get<std::string>(), m.at("formula").get<std::string>(),
                              m.at("group").get<std::string>()});
    }
    meta.passes = j.at("passes").get<std::vector<std::vector<std::string>>>();
    meta.plan = j.at("plan").get<std::string>();
    meta.complete = j.value("complete", true);  // files from before resume were whole runs
    if (j.contains("system")) meta.system = SystemFromJson(j.at("system"));
    if (j.contains("shards")) {
      meta.agents = j.at("agents").get<std::vector<std::string>>();
      for (const auto& s : j.at("shards")) {
        meta.shards.push_back({s.at("id").get<std::string>(),
                               JsonIntegers<uint32_t>(s.at("variants")),
                               s.at("agent").get<std::string>(), s.at("state").get<std::string>()});
      }
    }
    meta.method = j.value("method", std::string());
    for (const auto& in : j.value("inputs", nlohmann::json::array())) {
      RunMeta::Inputs one{in.at("args").get<std::vector<std::string>>(),
                          in.at("test_data_hash").get<std::string>()};
      if (in.contains("flops")) one.work.flops = in.at("flops").get<double>();
      if (in.contains("bytes")) one.work.bytes = in.at("bytes").get<double>();
      meta.inputs.push_back(std::move(one));
    }
    meta.build = j.value("build", std::map<std::string, std::string>());
    for (const auto& r : j.value("reused", nlohmann::json::array())) {
      meta.reused.push_back({JsonInteger<uint32_t>(r.at("variant")),
                             r.at("run_id").get<std::string>(),
                             JsonInteger<int64_t>(r.at("measured_ns"))});
    }
    return meta;
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(where + ": " + e.what());
  }
}

size_t DropSuperseded(const RunMeta& meta, std::vector<RepetitionRow>& rows) {
  // variant -> the ids of the shards that list it, in the sweep's order
  std::map<uint32_t, std::vector<std::string>> listed;
  for (const RunMeta::Shard& s : meta.shards) {
    for (uint32_t v : s.variants) listed[v].push_back(s.id);
  }
  // variant -> the shard whose rows count: the last listing it that holds a row of it
  std::map<uint32_t, std::pair<size_t, std::string>> owner;
  for (const RepetitionRow& r : rows) {
    auto it = listed.find(r.variant_index);
    if (it == listed.end() || it->second.size() < 2) continue;
    const auto& ids = it->second;
    const size_t at =
        static_cast<size_t>(std::find(ids.begin(), ids.end(), r.run_id) - ids.begin());
    if (at == ids.size()) continue;  // another run's rows
    auto [o, fresh] = owner.try_emplace(r.variant_index, at, r.run_id);
    if (!fresh && at > o->second.first) o->second = {at, r.run_id};
  }
  const size_t before = rows.size();
  std::erase_if(rows, [&](const RepetitionRow& r) {
    auto o = owner.find(r.variant_index);
    if (o == owner.end() || r.run_id == o->second.second) return false;
    const auto& ids = listed.at(r.variant_index);
    return std::find(ids.begin(), ids.end(), r.run_id) != ids.end();
  });
  return before - rows.size();
}

std::vector<std::string> IdFilesIn(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".csv") names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (std::string& n : names) n = dir + "/" + n;
  return names;
}

Result<std::string> FindIdFile(const std::string& dir, const std::string& id,
                               const std::string& what, const std::string& none) {
  if (!id.empty()) {
    const std::string path = dir + "/" + id + ".csv";
    if (!fs::exists(path)) return NotFound("no " + what + " " + id + " in " + dir);
    return path;
  }
  const std::vector<std::string> files = IdFilesIn(dir);
  if (files.empty()) return NotFound(none);
  return files.back();
}

Result<std::string> FindRunFile(const std::string& kernel_run_dir, const std::string& run_id) {
  const std::string dir = ResultsDir(kernel_run_dir);
  return FindIdFile(dir, run_id, "run", "no results in " + dir + " (run `khost run` first)");
}

Result<LoadedRun> LoadRun(const std::string& kernel_run_dir, const std::string& run) {
  LoadedRun out;
  if (run.ends_with(".csv")) {
    out.path = run;
  } else {
    KT_ASSIGN_OR_RETURN(out.path, FindRunFile(kernel_run_dir, run));
  }
  KT_ASSIGN_OR_RETURN(std::string text, ReadFile(out.path));
  auto file = ParseResultsCsv(text);
  if (!file.ok()) return file.status().WithContext(out.path);
  if (file->rows.empty()) return NotFound(out.path + " holds no results");
  MergedRows merged = MergeRepetitions(file->rows);
  out.rows = std::move(merged.rows);
  out.duplicate_lines = merged.duplicate_lines;
  out.first_duplicate_line = merged.first_duplicate_line;
  out.torn_lines = file->torn_lines;
  if (auto meta = ReadRunMeta(RunMetaPath(out.path)); meta.ok()) {
    KT_ASSIGN_OR_RETURN(out.metrics, MetricDefsOf(*meta, RunMetaPath(out.path)));
    out.meta = std::move(meta).value();
    out.superseded_rows = DropSuperseded(*out.meta, out.rows);
  }
  return out;
}

Result<std::vector<MetricDef>> MetricDefsOf(const RunMeta& meta, const std::string& where) {
  std::vector<MetricDef> out;
  for (const RunMeta::Metric& m : meta.metrics) {
    auto def = MakeMetric(m.name, m.formula, m.group);
    if (!def.ok()) return def.status().WithContext(where);
    out.push_back(std::move(def).value());
  }
  return out;
}

namespace {

// Which variants' rows came from which earlier run, and what that means for comparing them.
std::string ReusedWarning(const RunMeta& meta, const std::vector<RepetitionRow>& rows) {
  std::map<uint32_t, std::string> names;
  for (const RepetitionRow& r : rows) names.emplace(r.variant_index, r.variant);
  std::vector<std::string> which;
  for (const RunMeta::Reused& r : meta.reused) {
    if (which.size() == 3) {
      which.push_back("and " + std::to_string(meta.reused.size() - 3) + " more");
      break;
    }
    auto it = names.find(r.variant);
    which.push_back((it == names.end() ? "variant " + std::to_string(r.variant) : it->second) +
                    " from run " + r.run_id + " (" + UtcText(r.measured_ns / 1'000'000, false) +
                    ")");
  }
  const size_t n = meta.reused.size();
  return std::to_string(n) + (n == 1 ? " variant was" : " variants were") +
         " reused from the tuning database, not measured in run " + meta.run_id + ": " +
         Join(which, ", ") +
         "; their repetitions were not interleaved with this run's, so drift between the runs "
         "can move them (khost run --fresh measures every variant)";
}

}  // namespace

std::vector<std::string> RunWarnings(const LoadedRun& run) {
  std::vector<std::string> out;
  if (run.meta && !run.meta->complete) {
    out.push_back("run " + run.meta->run_id + " is not complete (" +
                  std::to_string(run.rows.size()) + " repetitions; khost run --resume --run " +
                  run.meta->run_id +
                  " measures the rest, khost report --fetch takes what the agent holds)");
  }
  if (run.meta && !run.meta->reused.empty()) out.push_back(ReusedWarning(*run.meta, run.rows));
  if (run.torn_lines) {
    out.push_back(run.path + ": ignored an unterminated last line (the writer died mid-row; " +
                  "khost report --fetch gets it again from the agent's journal)");
  }
  if (run.duplicate_lines) {
    out.push_back(run.path + ": ignored " + std::to_string(run.duplicate_lines) +
                  " duplicate line" + (run.duplicate_lines == 1 ? "" : "s") + ", from line " +
                  std::to_string(run.first_duplicate_line) +
                  " (a repetition's value given again, or another measurement of a repetition; " +
                  "the first is kept)");
  }
  if (run.superseded_rows) {
    out.push_back(run.path + ": did not count " + std::to_string(run.superseded_rows) +
                  " repetition" + (run.superseded_rows == 1 ? "" : "s") +
                  " of variants cut short on an agent that dropped out and measured again whole "
                  "on another (they stay in the file)");
  }
  return out;
}

}  // namespace ktune::host
