// The ceilings khost roofline measured, per board and thread count.
#include "host/db/tuning_db.h"

namespace ktune::host {

namespace {
const std::vector<std::string> kCeilingColumns = {"board", "threads",   "kind",
                                                  "name",  "precision", "size_bytes",
                                                  "value", "run_id",    "measured_ns"};
}  // namespace

Status TuningDb::RecordCeilings(const std::string& board, int64_t threads,
                                const std::vector<CeilingRow>& rows) {
  std::vector<SqlRow> lines;
  for (const CeilingRow& r : rows) {
    lines.push_back({board, threads, r.kind, r.name, r.precision, r.size_bytes, r.value, r.run_id,
                     r.measured_ns});
  }
  return InTransaction(*sql_, [&]() -> Status {
    KT_RETURN_IF_ERROR(
        sql_->Query("DELETE FROM ceilings WHERE board = $1 AND threads = $2", {board, threads})
            .status());
    return sql_->InsertNew("ceilings", kCeilingColumns, lines).status();
  });
}

Result<std::vector<CeilingRow>> TuningDb::CeilingsOf(const std::string& board, int64_t threads) {
  KT_ASSIGN_OR_RETURN(
      auto rows, sql_->Query("SELECT kind, name, precision, size_bytes, value, run_id, measured_ns "
                             "FROM ceilings WHERE board = $1 AND threads = $2 ORDER BY kind, "
                             "CASE WHEN size_bytes = 0 THEN 1 ELSE 0 END, size_bytes, name",
                             {board, threads}));
  std::vector<CeilingRow> out;
  for (const SqlRow& r : rows) {
    out.push_back({SqlString(r[0]), SqlString(r[1]), SqlString(r[2]), SqlInt(r[3]), SqlReal(r[4]),
                   SqlString(r[5]), SqlInt(r[6])});
  }
  return out;
}

Result<std::vector<int64_t>> TuningDb::CeilingThreads(const std::string& board) {
  KT_ASSIGN_OR_RETURN(
      auto rows,
      sql_->Query("SELECT DISTINCT threads FROM ceilings WHERE board = $1 ORDER BY threads",
                  {board}));
  std::vector<int64_t> out;
  for (const SqlRow& r : rows) out.push_back(SqlInt(r[0]));
  return out;
}

}  // namespace ktune::host
