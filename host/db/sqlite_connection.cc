// SqlConnection over SQLite (libsqlite3): one file, WAL so that readers never wait for the writer,
// a busy timeout so that several khost processes writing at once take turns. Statements are
// prepared once per connection and kept.
#include <sqlite3.h>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "common/fs.h"
#include "host/db/sql.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;

// SQLite's error as a message.
Status SqliteError(sqlite3* db, const std::string& path, const std::string& what) {
  const int code = sqlite3_extended_errcode(db);
  std::string m = path + ": " + what + ": " + sqlite3_errmsg(db);
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
    return Unavailable(m + " (another process holds the database's lock)");
  }
  if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT) {
    return IoError(m + " (the file is not a database, or is damaged: it is left as it is)");
  }
  return IoError(m);
}

// The statement with PostgreSQL's $N parameters as SQLite's ?N (the same index, bound without a
// lookup by name); a '$' inside a quoted string stays.
std::string Numbered(const std::string& sql) {
  std::string out = sql;
  bool quoted = false;
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '\'') quoted = !quoted;
    if (!quoted && out[i] == '$' && std::isdigit(static_cast<unsigned char>(out[i + 1]))) {
      out[i] = '?';
    }
  }
  return out;
}

class SqliteConnection : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }

  const char* backend() const override { return "sqlite"; }
  const std::string& location() const override { return path_; }

  Status Exec(const std::string& sql) override {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return Status::Ok();
    sqlite3_free(error);
    return SqliteError(db_, path_, "cannot execute");
  }

  Result<std::vector<SqlRow>> Query(const std::string& sql,
                                    const std::vector<SqlValue>& params) override {
    KT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    KT_RETURN_IF_ERROR(Bind(stmt, params));
    std::vector<SqlRow> rows;
    while (true) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        sqlite3_reset(stmt);
        return SqliteError(db_, path_, "cannot query");
      }
      rows.push_back(RowOf(stmt));
    }
    sqlite3_reset(stmt);
    return rows;
  }

  Result<size_t> InsertNew(const std::string& table, const std::vector<std::string>& columns,
                           const std::vector<SqlRow>& rows) override {
    KT_RETURN_IF_ERROR(CheckWidths(table, columns, rows));
    std::string sql = "INSERT INTO " + table + " (";
    std::string values;
    for (size_t i = 0; i < columns.size(); ++i) {
      sql += (i ? ", " : "") + columns[i];
      values += (i ? ", $" : "$") + std::to_string(i + 1);
    }
    sql += ") VALUES (" + values + ") ON CONFLICT DO NOTHING";
    KT_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    const bool own = sqlite3_get_autocommit(db_) != 0;
    if (own) KT_RETURN_IF_ERROR(Begin());
    size_t added = 0;
    for (const SqlRow& row : rows) {
      Status s = Bind(stmt, row);
      if (s.ok() && sqlite3_step(stmt) != SQLITE_DONE) s = SqliteError(db_, path_, "cannot insert");
      sqlite3_reset(stmt);
      if (!s.ok()) {
        if (own) Rollback();
        return s;
      }
      added += static_cast<size_t>(sqlite3_changes(db_));
    }
    if (own) KT_RETURN_IF_ERROR(Commit());
    return added;
  }

  Status Begin() override { return Exec("BEGIN IMMEDIATE"); }
  Status Commit() override { return Exec("COMMIT"); }
  void Rollback() override {
    if (!sqlite3_get_autocommit(db_)) (void)Exec("ROLLBACK");
  }
  Status LockForMigration() override { return Status::Ok(); }  // BEGIN IMMEDIATE holds it

 private:
  Result<sqlite3_stmt*> Prepare(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    const std::string numbered = Numbered(sql);
    if (sqlite3_prepare_v3(db_, numbered.c_str(), static_cast<int>(numbered.size()),
                           SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
      return SqliteError(db_, path_, "cannot prepare a statement");
    }
    statements_.emplace(sql, stmt);
    return stmt;
  }

  // Binds $1..$n, which Prepare made SQLite's ?1..?n: parameter i is at index i.
  Status Bind(sqlite3_stmt* stmt, const std::vector<SqlValue>& params) {
    sqlite3_clear_bindings(stmt);
    const int count = sqlite3_bind_parameter_count(stmt);
    for (int at = 1; at <= count && at <= static_cast<int>(params.size()); ++at) {
      const SqlValue& v = params[static_cast<size_t>(at - 1)];
      int rc = SQLITE_OK;
      if (const auto* n = std::get_if<int64_t>(&v)) {
        rc = sqlite3_bind_int64(stmt, at, *n);
      } else if (const auto* d = std::get_if<double>(&v)) {
        rc = sqlite3_bind_double(stmt, at, *d);
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        rc = sqlite3_bind_text(stmt, at, s->data(), static_cast<int>(s->size()), SQLITE_STATIC);
      } else {
        rc = sqlite3_bind_null(stmt, at);
      }
      if (rc != SQLITE_OK) return SqliteError(db_, path_, "cannot bind $" + std::to_string(at));
    }
    return Status::Ok();
  }

  static SqlRow RowOf(sqlite3_stmt* stmt) {
    SqlRow row;
    const int n = sqlite3_column_count(stmt);
    row.reserve(static_cast<size_t>(n));
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(stmt, c));
          break;
        case SQLITE_NULL:
          row.emplace_back(std::monostate{});
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        }
      }
    }
    return row;
  }

  sqlite3* db_;
  std::string path_;
  std::map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path, bool create,
                                                  int busy_timeout_ms) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (!create) return NotFound(path + ": no such database (khost db import ROOT makes one)");
    const fs::path dir = fs::path(path).parent_path();
    if (!dir.empty()) KT_RETURN_IF_ERROR(MakeDirs(dir.string()));
  } else if (!fs::is_regular_file(path, ec)) {
    return InvalidArgument(path + ": not a regular file, so not an SQLite database");
  }
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Status s = db ? SqliteError(db, path, "cannot open")
                  : ResourceExhausted(path + ": cannot open: out of memory");
    sqlite3_close(db);
    return s;
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  std::unique_ptr<SqlConnection> conn = std::make_unique<SqliteConnection>(db, path);
  // Reading the schema's first page tells a database from another file before anything writes.
  KT_RETURN_IF_ERROR(conn->Query("SELECT count(*) FROM sqlite_master").status());
  // Turning a new file to WAL upgrades the pragma's own read lock to a write lock, for which
  // SQLite does not call the busy handler (two connections each holding a read lock would wait
  // for each other): while another process opens the file too, it fails at once as busy. It is
  // tried again, within the busy timeout, as a lock is waited for.
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  for (;;) {
    Status wal = conn->Exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
    if (wal.ok()) break;
    if (wal.code() != ErrorCode::kUnavailable || std::chrono::steady_clock::now() >= give_up) {
      return wal;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return conn;
}

}  // namespace ktune::host
