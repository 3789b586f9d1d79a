// One SQL connection, SQLite or PostgreSQL, behind the few calls the tuning database makes
// (host/db/tuning_db.h): statements with numbered parameters ($1, $2, ... in both dialects), a
// query's rows as typed values, transactions, and InsertNew, the one bulk write (a row whose key
// the table holds is left as it is, so writing a row twice stores it once). Nothing above this
// file knows which backend it talks to; the SQL both take is the subset the schema is written in
// (host/db/schema.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"

namespace ktune::host {

// NULL, an integer, a real or a text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

// A value's text as a message shows it ("NULL" for NULL).
std::string SqlText(const SqlValue& v);
// The integer, real or text a column holds; a NULL or another type reads as `fallback`.
int64_t SqlInt(const SqlValue& v, int64_t fallback = 0);
double SqlReal(const SqlValue& v, double fallback = 0);  // an integer reads as a real too
std::string SqlString(const SqlValue& v, const std::string& fallback = "");
// A nullable real column: nullopt for NULL.
std::optional<double> SqlOptionalReal(const SqlValue& v);

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual const char* backend() const = 0;  // "sqlite" or "postgresql"
  // Where it is, for messages: the file's path, or the URL without its password.
  virtual const std::string& location() const = 0;

  // Statements without parameters, several separated by ';' (the schema's).
  virtual Status Exec(const std::string& sql) = 0;
  // One statement with parameters $1..$n; its rows (none for a statement that returns none).
  virtual Result<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  // Inserts `rows` (values in the order of `columns`) into `table`, each row whose primary key
  // the table already holds left out; returns how many were new. Outside a transaction it is one.
  virtual Result<size_t> InsertNew(const std::string& table,
                                   const std::vector<std::string>& columns,
                                   const std::vector<SqlRow>& rows) = 0;

  // A write transaction: SQLite takes the database's write lock at once (BEGIN IMMEDIATE, so two
  // writers wait for each other rather than deadlock); PostgreSQL begins.
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;
  // Holds every other writer off until the transaction ends (the schema's migrations): SQLite's
  // write lock is that already; PostgreSQL takes a transaction-level advisory lock.
  virtual Status LockForMigration() = 0;
};

// The SQLite file at `path`, created when missing (with its directory) and `create`; WAL, and
// a writer waits up to `busy_timeout_ms` for another's lock. A file that is not a database is an
// error naming it, never replaced.
Result<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path, bool create,
                                                  int busy_timeout_ms = 30000);
// A PostgreSQL server by its URL (postgresql://user@host:port/db, or ?host=/socket/dir).
Result<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url);

// Runs `work` in a transaction (Begin, Commit; Rollback when it fails).
template <typename F>
Status InTransaction(SqlConnection& db, F work) {
  KT_RETURN_IF_ERROR(db.Begin());
  Status s = work();
  if (!s.ok()) {
    db.Rollback();
    return s;
  }
  return db.Commit();
}

// InsertNew's rows must each hold a value per column: an internal error naming the table if not.
Status CheckWidths(const std::string& table, const std::vector<std::string>& columns,
                   const std::vector<SqlRow>& rows);

// "postgresql://u:secret@h/db" -> "postgresql://u@h/db": a URL as messages may show it.
std::string WithoutPassword(const std::string& url);

}  // namespace ktune::host
