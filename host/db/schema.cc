// The migrations, oldest first. Each is SQL both SQLite and PostgreSQL take: BIGINT, DOUBLE
// PRECISION and TEXT columns, natural primary keys (no sequences), plain indices. A migration
// is never edited once released: a change is a new one.
#include "host/db/schema.h"

#include <cstring>

#include "common/strings.h"

namespace ktune::host {

namespace {

// Version 1: runs, their variants, every measured value (the long CSV's lines), and one result
// per variant of a run (its median and interval), which best, history and reuse read.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  kernel TEXT NOT NULL,
  board TEXT NOT NULL,
  cpu TEXT NOT NULL,
  agent TEXT NOT NULL,
  started_ns BIGINT NOT NULL,
  events TEXT NOT NULL,
  method TEXT NOT NULL,
  ktune_version TEXT NOT NULL,
  spec_hash TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  source_key TEXT NOT NULL,
  host TEXT NOT NULL,
  complete BIGINT NOT NULL,
  meta_json TEXT NOT NULL
);
CREATE INDEX runs_by_kernel ON runs (kernel, started_ns);
CREATE TABLE variants (
  run_id TEXT NOT NULL,
  variant_index BIGINT NOT NULL,
  name TEXT NOT NULL,
  elf TEXT NOT NULL,
  config TEXT NOT NULL,
  shape TEXT NOT NULL,
  elf_hash TEXT NOT NULL,
  args TEXT NOT NULL,
  test_data_hash TEXT NOT NULL,
  reuse_key TEXT NOT NULL,
  PRIMARY KEY (run_id, variant_index)
);
CREATE TABLE measurements (
  row_run_id TEXT NOT NULL,
  variant_index BIGINT NOT NULL,
  pass BIGINT NOT NULL,
  repetition BIGINT NOT NULL,
  name TEXT NOT NULL,
  position BIGINT NOT NULL,
  run_id TEXT NOT NULL,
  board TEXT NOT NULL,
  timestamp_ns BIGINT NOT NULL,
  sampling BIGINT NOT NULL,
  valid BIGINT NOT NULL,
  outcome TEXT NOT NULL,
  value DOUBLE PRECISION,
  unit TEXT NOT NULL,
  enabled_ns BIGINT NOT NULL,
  running_ns BIGINT NOT NULL,
  status TEXT NOT NULL,
  PRIMARY KEY (row_run_id, variant_index, pass, repetition, name)
);
CREATE INDEX measurements_by_run ON measurements (run_id, variant_index);
CREATE TABLE results (
  run_id TEXT NOT NULL,
  variant_index BIGINT NOT NULL,
  kernel TEXT NOT NULL,
  board TEXT NOT NULL,
  config TEXT NOT NULL,
  shape TEXT NOT NULL,
  reuse_key TEXT NOT NULL,
  status TEXT NOT NULL,
  metric TEXT NOT NULL,
  n BIGINT NOT NULL,
  median_ns DOUBLE PRECISION,
  ci_low_ns DOUBLE PRECISION,
  ci_high_ns DOUBLE PRECISION,
  measured_ns BIGINT NOT NULL,
  PRIMARY KEY (run_id, variant_index)
);
CREATE INDEX results_by_kernel ON results (kernel, board, shape);
CREATE INDEX results_by_key ON results (reuse_key, measured_ns)
)sql";

// Version 2: each board's roofline ceilings (khost roofline): a row per compute ceiling (GFLOP/s
// of a precision and width), memory level (GB/s and capacity) and stream level (every stream's
// levels, kept beside the read stream's), per thread count; measuring again replaces them.
constexpr const char* kVersion2 = R"sql(
CREATE TABLE ceilings (
  board TEXT NOT NULL,
  threads BIGINT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  precision TEXT NOT NULL,
  size_bytes BIGINT NOT NULL,
  value DOUBLE PRECISION NOT NULL,
  run_id TEXT NOT NULL,
  measured_ns BIGINT NOT NULL,
  PRIMARY KEY (board, threads, kind, name)
)
)sql";

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {
      {1, "runs, variants, measurements, results", kVersion1},
      {2, "ceilings (khost roofline)", kVersion2},
  };
  return kMigrations;
}

int LatestSchemaVersion() {
  return Migrations().back().version;
}

Result<int> SchemaVersion(SqlConnection& db) {
  const std::string has_table =
      std::strcmp(db.backend(), "sqlite") == 0
          ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'ktune_schema'"
          : "SELECT count(*) FROM pg_tables WHERE tablename = 'ktune_schema' AND "
            "schemaname = current_schema()";
  KT_ASSIGN_OR_RETURN(auto found, db.Query(has_table));
  if (found.empty() || SqlInt(found[0][0]) == 0) return 0;
  KT_ASSIGN_OR_RETURN(auto rows, db.Query("SELECT max(version) FROM ktune_schema"));
  return rows.empty() ? 0 : static_cast<int>(SqlInt(rows[0][0]));
}

Status Migrate(SqlConnection& db) {
  KT_ASSIGN_OR_RETURN(int version, SchemaVersion(db));
  if (version == LatestSchemaVersion()) return Status::Ok();
  if (version > LatestSchemaVersion()) {
    return Unsupported(db.location() + ": the database's schema is version " +
                       std::to_string(version) + ", newer than this khost's (" +
                       std::to_string(LatestSchemaVersion()) + "): use a newer khost");
  }
  return InTransaction(db, [&]() -> Status {
    KT_RETURN_IF_ERROR(db.LockForMigration());
    // Another khost may have migrated while this one waited for the lock.
    KT_ASSIGN_OR_RETURN(version, SchemaVersion(db));
    if (version == 0) {
      KT_RETURN_IF_ERROR(
          db.Exec("CREATE TABLE IF NOT EXISTS ktune_schema (version BIGINT PRIMARY KEY, "
                  "description TEXT NOT NULL, applied_utc TEXT NOT NULL)"));
    }
    for (const Migration& m : Migrations()) {
      if (m.version <= version) continue;
      KT_RETURN_IF_ERROR(db.Exec(m.sql).WithContext("schema version " + std::to_string(m.version)));
      KT_RETURN_IF_ERROR(
          db.Query("INSERT INTO ktune_schema (version, description, applied_utc) "
                   "VALUES ($1, $2, $3)",
                   {int64_t{m.version}, std::string(m.description), UtcNowText(false)})
              .status());
    }
    return Status::Ok();
  });
}

}  // namespace ktune::host
