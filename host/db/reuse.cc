// What reuse reads from the tuning database: a measurement with a variant's reuse key, and its
// rows as they were recorded (those the run counts).
#include <map>
#include <tuple>

#include "host/db/tuning_db.h"
#include "host/results/results_dir.h"

namespace ktune::host {

Result<std::optional<Reusable>> TuningDb::FindReusable(const std::string& key, int64_t since_ns,
                                                       size_t min_n) {
  if (key.empty()) return std::optional<Reusable>();
  KT_ASSIGN_OR_RETURN(auto rows, sql_->Query("SELECT run_id, variant_index, measured_ns, n FROM "
                                             "results WHERE reuse_key = $1 AND status = 'ok' "
                                             "AND measured_ns >= $2 AND n >= $3 ORDER BY "
                                             "measured_ns DESC LIMIT 1",
                                             {key, since_ns, static_cast<int64_t>(min_n)}));
  if (rows.empty()) return std::optional<Reusable>();
  return std::optional<Reusable>(
      Reusable{SqlString(rows[0][0]), static_cast<uint32_t>(SqlInt(rows[0][1])), SqlInt(rows[0][2]),
               static_cast<size_t>(SqlInt(rows[0][3]))});
}

namespace {

// A variant of a sweep measured again after a board dropped out: the measurement the run counts
// (DropSuperseded, by the shards of the run's metadata), not the rows cut short.
Status DropSupersededOf(SqlConnection& sql, const std::string& where, const std::string& run_id,
                        std::vector<RepetitionRow>& rows) {
  KT_ASSIGN_OR_RETURN(auto meta,
                      sql.Query("SELECT meta_json FROM runs WHERE run_id = $1", {run_id}));
  if (meta.empty()) return Status::Ok();
  KT_ASSIGN_OR_RETURN(const RunMeta m,
                      ParseRunMeta(SqlString(meta[0][0]), where + ": run " + run_id));
  DropSuperseded(m, rows);
  return Status::Ok();
}

}  // namespace

Result<std::vector<RepetitionRow>> TuningDb::RowsOf(const std::string& run_id,
                                                    uint32_t variant_index) {
  KT_ASSIGN_OR_RETURN(auto variant, sql_->Query("SELECT name, elf, config, shape, elf_hash FROM "
                                                "variants WHERE run_id = $1 AND variant_index = $2",
                                                {run_id, int64_t{variant_index}}));
  if (variant.empty()) {
    return NotFound(location() + " has no variant " + std::to_string(variant_index) + " of run " +
                    run_id);
  }
  KT_ASSIGN_OR_RETURN(const Params params, ParseParams(SqlString(variant[0][2])));
  KT_ASSIGN_OR_RETURN(const Params shape, ParseParams(SqlString(variant[0][3])));
  KT_ASSIGN_OR_RETURN(
      auto lines,
      sql_->Query("SELECT row_run_id, pass, repetition, board, timestamp_ns, sampling, valid, "
                  "outcome, name, value, unit, enabled_ns, running_ns, status FROM measurements "
                  "WHERE run_id = $1 AND variant_index = $2 ORDER BY row_run_id, pass, "
                  "repetition, position",
                  {run_id, int64_t{variant_index}}));
  std::vector<RepetitionRow> rows;
  std::tuple<std::string, int64_t, int64_t> at;
  for (const SqlRow& l : lines) {
    const std::tuple<std::string, int64_t, int64_t> key{SqlString(l[0]), SqlInt(l[1]),
                                                        SqlInt(l[2])};
    if (rows.empty() || key != at) {
      at = key;
      RepetitionRow r;
      r.run_id = std::get<0>(key);
      r.variant_index = variant_index;
      r.variant = SqlString(variant[0][0]);
      r.elf = SqlString(variant[0][1]);
      r.elf_hash = SqlString(variant[0][4]);
      r.params = params;
      r.shape = shape;
      r.pass = static_cast<uint32_t>(std::get<1>(key));
      r.repetition = static_cast<uint32_t>(std::get<2>(key));
      r.board = SqlString(l[3]);
      r.timestamp_ns = SqlInt(l[4]);
      r.sampling = SqlInt(l[5]) != 0;
      r.valid = SqlInt(l[6]) != 0;
      KT_ASSIGN_OR_RETURN(r.outcome, Outcome::Parse(SqlString(l[7])));
      rows.push_back(std::move(r));
    }
    MeasuredValue v;
    v.name = SqlString(l[8]);
    v.value = SqlReal(l[9]);
    v.unit = SqlString(l[10]);
    v.enabled_ns = static_cast<uint64_t>(SqlInt(l[11]));
    v.running_ns = static_cast<uint64_t>(SqlInt(l[12]));
    KT_ASSIGN_OR_RETURN(v.status, ParseValueStatus(SqlString(l[13])));
    rows.back().values.push_back(std::move(v));
  }
  KT_RETURN_IF_ERROR(DropSupersededOf(*sql_, location(), run_id, rows));
  return rows;
}

}  // namespace ktune::host
