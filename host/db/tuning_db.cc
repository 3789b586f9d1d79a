// The tuning database's writes and reads: runs recorded with their variants, lines and results;
// what it holds; the best configuration with its fallbacks.
#include "host/db/tuning_db.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/hash.h"
#include "common/median.h"
#include "common/strings.h"
#include "common/version.h"
#include "host/db/schema.h"
#include "host/util/user_paths.h"

namespace ktune::host {

bool IsPostgresUrl(const std::string& url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

std::string DefaultDbPath() {
  return EnvOr("XDG_DATA_HOME", HomeDir() + "/.local/share") + "/ktune/tuning.db";
}

Result<DbChoice> ChooseDb(const std::string& flag, const std::string& env,
                          const std::string& config_text, const std::string& config_path,
                          const std::string& default_path) {
  if (!flag.empty()) return DbChoice{flag, "--db"};
  if (!env.empty()) return DbChoice{env, "KTUNE_DB"};
  if (!config_text.empty()) {
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(config_text);
    } catch (const nlohmann::json::exception& e) {
      return InvalidArgument(config_path + ": not valid JSON: " + e.what());
    }
    if (doc.is_object() && doc.contains("db")) {
      if (!doc["db"].is_string() || doc["db"].get<std::string>().empty()) {
        return InvalidArgument(config_path +
                               ": \"db\" must be an SQLite file's path or a postgresql:// URL");
      }
      return DbChoice{doc["db"].get<std::string>(), config_path};
    }
  }
  return DbChoice{default_path, "default"};
}

VariantResult VariantResultOf(const std::vector<RepetitionRow>& rows, uint32_t variant_index) {
  VariantResult s;
  std::vector<double> kernel_ns, wall_ns;
  for (const RepetitionRow& r : rows) {
    if (r.variant_index != variant_index || r.sampling) continue;
    if (s.run_id.empty()) s.run_id = RunOfShard(r.run_id);
    s.measured_ns = std::max(s.measured_ns, r.timestamp_ns);
    if (!r.valid) {
      s.status = r.outcome.kind == OutcomeKind::kExited && r.outcome.code == 0
                     ? "NOT OK"
                     : r.outcome.ToString();
      return s;
    }
    ++s.n;
    if (const MeasuredValue* k = r.Find(kKernelTime); k && k->status == ValueStatus::kOk) {
      kernel_ns.push_back(k->value * 1e9);
    }
    if (const MeasuredValue* w = r.Find(kWallTime); w && w->status == ValueStatus::kOk) {
      wall_ns.push_back(w->value);
    }
  }
  if (s.n == 0) {
    s.status = "not measured";
    return s;
  }
  const bool kernel = kernel_ns.size() == s.n;
  const std::vector<double>& times = kernel ? kernel_ns : wall_ns;
  const std::optional<double> t = Median(times);
  if (!t || !(*t > 0) || !std::isfinite(*t)) {
    s.status = "no time";
    return s;
  }
  s.metric = kernel ? kKernelTime : kWallTime;
  s.median_ns = *t;
  if (auto ci = MedianConfidenceInterval(times)) {
    s.ci_low_ns = ci->low;
    s.ci_high_ns = ci->high;
  }
  return s;
}

const char* ComparedMetric(size_t with_kernel_time, size_t total) {
  return 2 * with_kernel_time >= total ? kKernelTime : kWallTime;
}

std::string ReuseKey(const std::string& elf_hash, const std::vector<std::string>& args,
                     const std::string& test_data_hash, const Params& shape,
                     const std::string& board, const std::string& method) {
  if (elf_hash.empty() || test_data_hash.empty() || board.empty() || method.empty()) return "";
  nlohmann::json key = {{"elf", elf_hash},
                        {"args", args},
                        {"test_data", test_data_hash},
                        {"shape", FormatParams(shape)},
                        {"board", board},
                        {"method", method}};
  return HashBytes(key.dump());
}

std::string KtuneVersion() {
  return KTUNE_VERSION " (" KTUNE_COMMIT ")";
}

std::string ThisHost() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

Result<std::unique_ptr<TuningDb>> TuningDb::Open(const DbChoice& where, bool create) {
  std::unique_ptr<SqlConnection> sql;
  if (IsPostgresUrl(where.url)) {
    KT_ASSIGN_OR_RETURN(sql, OpenPostgres(where.url));
  } else {
    const std::string path = where.url.starts_with("sqlite:")
                                 ? where.url.substr(std::string("sqlite:").size())
                                 : where.url;
    KT_ASSIGN_OR_RETURN(sql, OpenSqlite(path, create));
  }
  KT_RETURN_IF_ERROR(Migrate(*sql));
  return std::unique_ptr<TuningDb>(new TuningDb(std::move(sql)));
}

namespace {

const std::vector<std::string> kMeasurementColumns = {
    "row_run_id", "variant_index", "pass",         "repetition", "name",  "position",
    "run_id",     "board",         "timestamp_ns", "sampling",   "valid", "outcome",
    "value",      "unit",          "enabled_ns",   "running_ns", "status"};

SqlValue Nullable(const std::optional<double>& v) {
  return v ? SqlValue(*v) : SqlValue(std::monostate{});
}

int64_t Signed(uint64_t v) {
  return static_cast<int64_t>(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max()));
}

// The first row of each variant index, in index order.
std::map<uint32_t, const RepetitionRow*> FirstRowOfEach(const std::vector<RepetitionRow>& rows) {
  std::map<uint32_t, const RepetitionRow*> first;
  for (const RepetitionRow& r : rows) first.emplace(r.variant_index, &r);
  return first;
}

}  // namespace

Result<size_t> TuningDb::AddRows(const std::vector<RepetitionRow>& rows) {
  std::vector<SqlRow> lines;
  for (const RepetitionRow& r : rows) {
    int64_t position = 0;
    for (const MeasuredValue& v : r.values) {
      lines.push_back({r.run_id, int64_t{r.variant_index}, int64_t{r.pass}, int64_t{r.repetition},
                       v.name, position++, RunOfShard(r.run_id), r.board, r.timestamp_ns,
                       int64_t{r.sampling}, int64_t{r.valid}, r.outcome.ToString(),
                       HasValue(v.status) ? SqlValue(v.value) : SqlValue(std::monostate{}), v.unit,
                       Signed(v.enabled_ns), Signed(v.running_ns),
                       std::string(ValueStatusName(v.status))});
    }
  }
  return sql_->InsertNew("measurements", kMeasurementColumns, lines);
}

namespace {

Status UpsertRun(SqlConnection& sql, const RunMeta& meta, const std::vector<RepetitionRow>& rows,
                 const std::string& host) {
  std::string board;
  int64_t started_ns = 0;
  for (const RepetitionRow& r : rows) {
    if (RunOfShard(r.run_id) != meta.run_id) continue;
    if (board.empty()) board = r.board;
    if (started_ns == 0 || r.timestamp_ns < started_ns) started_ns = r.timestamp_ns;
  }
  // A run whose every variant was reused measured nothing itself: its board is its rows' (reuse
  // keys hold the board), its start unknown (0: it is never the newest run).
  if (board.empty() && !rows.empty()) board = rows.front().board;
  auto build = [&](const char* key) {
    auto it = meta.build.find(key);
    return it == meta.build.end() ? std::string() : it->second;
  };
  return sql
      .Query(
          "INSERT INTO runs (run_id, kernel, board, cpu, agent, started_ns, events, method, "
          "ktune_version, spec_hash, toolchain, source_key, host, complete, meta_json) VALUES "
          "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT "
          "(run_id) DO UPDATE SET board = excluded.board, cpu = excluded.cpu, agent = "
          "excluded.agent, started_ns = excluded.started_ns, complete = excluded.complete, "
          "meta_json = excluded.meta_json",
          {meta.run_id, meta.kernel, board, meta.cpu, meta.agent, started_ns,
           Join(meta.events, ";"), meta.method,
           build("measured_by").empty() ? build("ktune") : build("measured_by"), build("spec_hash"),
           build("toolchain"), build("sources"), host, int64_t{meta.complete}, RunMetaJson(meta)})
      .status();
}

// The run's variants and their results, replaced.
Status ReplaceVariants(SqlConnection& sql, const RunMeta& meta,
                       const std::vector<RepetitionRow>& rows) {
  std::vector<RepetitionRow> own;
  for (const RepetitionRow& r : rows) {
    if (RunOfShard(r.run_id) == meta.run_id) own.push_back(r);
  }
  DropSuperseded(meta, own);  // a moved variant's result is of the measurement the run counts
  for (const char* table : {"variants", "results"}) {
    KT_RETURN_IF_ERROR(
        sql.Query(std::string("DELETE FROM ") + table + " WHERE run_id = $1", {meta.run_id})
            .status());
  }
  std::vector<SqlRow> variants, results;
  for (const auto& [index, r] : FirstRowOfEach(own)) {
    const RunMeta::Inputs in = index < meta.inputs.size() ? meta.inputs[index] : RunMeta::Inputs{};
    const std::string key =
        ReuseKey(r->elf_hash, in.args, in.test_data_hash, r->shape, r->board, meta.method);
    const std::string config = FormatParams(r->params), shape = FormatParams(r->shape);
    variants.push_back({meta.run_id, int64_t{index}, r->variant, r->elf, config, shape, r->elf_hash,
                        nlohmann::json(in.args).dump(), in.test_data_hash, key});
    const VariantResult s = VariantResultOf(own, index);
    results.push_back({meta.run_id, int64_t{index}, meta.kernel, r->board, config, shape, key,
                       s.status, s.metric, static_cast<int64_t>(s.n), Nullable(s.median_ns),
                       Nullable(s.ci_low_ns), Nullable(s.ci_high_ns), s.measured_ns});
  }
  KT_RETURN_IF_ERROR(sql.InsertNew("variants",
                                   {"run_id", "variant_index", "name", "elf", "config", "shape",
                                    "elf_hash", "args", "test_data_hash", "reuse_key"},
                                   variants)
                         .status());
  return sql
      .InsertNew("results",
                 {"run_id", "variant_index", "kernel", "board", "config", "shape", "reuse_key",
                  "status", "metric", "n", "median_ns", "ci_low_ns", "ci_high_ns", "measured_ns"},
                 results)
      .status();
}

}  // namespace

Result<size_t> TuningDb::RecordRun(const RunMeta& meta, const std::vector<RepetitionRow>& rows,
                                   const std::string& host) {
  size_t added = 0;
  KT_RETURN_IF_ERROR(InTransaction(*sql_, [&]() -> Status {
    KT_RETURN_IF_ERROR(UpsertRun(*sql_, meta, rows, host));
    KT_RETURN_IF_ERROR(ReplaceVariants(*sql_, meta, rows));
    KT_ASSIGN_OR_RETURN(added, AddRows(rows));
    return Status::Ok();
  }));
  return added;
}

Result<DbContents> TuningDb::Contents() {
  DbContents c;
  c.backend = sql_->backend();
  c.location = sql_->location();
  KT_ASSIGN_OR_RETURN(c.schema_version, SchemaVersion(*sql_));
  KT_ASSIGN_OR_RETURN(
      auto counts,
      sql_->Query("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM measurements), "
                  "(SELECT count(*) FROM results)"));
  c.runs = SqlInt(counts[0][0]);
  c.measurements = SqlInt(counts[0][1]);
  c.results = SqlInt(counts[0][2]);
  KT_ASSIGN_OR_RETURN(
      auto kernels,
      sql_->Query("SELECT r.kernel, count(DISTINCT r.run_id), count(DISTINCT r.config), "
                  "count(DISTINCT r.board), count(DISTINCT r.shape), "
                  "(SELECT max(started_ns) FROM runs WHERE runs.kernel = r.kernel) "
                  "FROM results r GROUP BY r.kernel ORDER BY r.kernel"));
  for (const SqlRow& k : kernels) {
    c.kernels.push_back(
        {SqlString(k[0]), SqlInt(k[1]), SqlInt(k[2]), SqlInt(k[3]), SqlInt(k[4]), SqlInt(k[5])});
  }
  return c;
}

}  // namespace ktune::host
