// SqlConnection over PostgreSQL (libpq): parameters and results in text, typed back by their
// column's type; InsertNew copies the rows in (COPY, which takes rows in bulk where INSERT takes
// them one statement at a time): straight into the table when it holds none of them, else into a
// temporary table whose new rows are then moved across.
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "common/strings.h"
#include "host/db/sql.h"

namespace ktune::host {
namespace {

// The type OIDs of pg_type that come back as numbers.
constexpr Oid kBool = 16, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701,
              kNumeric = 1700;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

std::string FirstLine(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  for (char& c : m) {
    if (c == '\n') c = ' ';
  }
  return m;
}

// COPY's text format: \N for NULL; backslash, tab, newline and carriage return escaped.
void AppendCopyField(std::string& out, const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) {
    out += "\\N";
    return;
  }
  for (char c : SqlText(v)) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
}

class PostgresConnection : public SqlConnection {
 public:
  PostgresConnection(PGconn* conn, std::string location)
      : conn_(conn), location_(std::move(location)) {}
  ~PostgresConnection() override { PQfinish(conn_); }

  const char* backend() const override { return "postgresql"; }
  const std::string& location() const override { return location_; }

  Status Exec(const std::string& sql) override {
    PgResult r(PQexec(conn_, sql.c_str()));
    return Check(r.get(), "cannot execute");
  }

  Result<std::vector<SqlRow>> Query(const std::string& sql,
                                    const std::vector<SqlValue>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      if (std::holds_alternative<std::monostate>(params[i])) continue;
      texts[i] = SqlText(params[i]);
      values[i] = texts[i].c_str();
    }
    PgResult r(PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                            values.data(), nullptr, nullptr, 0));
    KT_RETURN_IF_ERROR(Check(r.get(), "cannot query"));
    return RowsOf(r.get());
  }

  Result<size_t> InsertNew(const std::string& table, const std::vector<std::string>& columns,
                           const std::vector<SqlRow>& rows) override {
    KT_RETURN_IF_ERROR(CheckWidths(table, columns, rows));
    if (rows.empty()) return size_t{0};
    const std::string staging = "ktune_staging_" + table;
    const std::string list = Join(columns, ", ");
    const bool own = PQtransactionStatus(conn_) == PQTRANS_IDLE;
    if (own) KT_RETURN_IF_ERROR(Begin());
    auto work = [&]() -> Result<size_t> {
      // Rows the table does not hold (an import of a new run, a run's first lines) are copied
      // straight in, the fastest way; at a row it holds already the copy fails, is undone to the
      // savepoint, and the rows go through the staging table instead.
      KT_RETURN_IF_ERROR(Exec("SAVEPOINT ktune_direct"));
      if (Copy("COPY " + table + " (" + list + ") FROM STDIN", rows).ok()) {
        KT_RETURN_IF_ERROR(Exec("RELEASE SAVEPOINT ktune_direct"));
        return rows.size();
      }
      KT_RETURN_IF_ERROR(Exec("ROLLBACK TO SAVEPOINT ktune_direct"));
      // Made at the first call of the session (or again after a rollback took it back), emptied
      // at every commit, and here for a second call in one transaction.
      KT_RETURN_IF_ERROR(Exec("CREATE TEMPORARY TABLE IF NOT EXISTS " + staging + " (LIKE " +
                              table + ") ON COMMIT DELETE ROWS; TRUNCATE " + staging));
      KT_RETURN_IF_ERROR(Copy("COPY " + staging + " (" + list + ") FROM STDIN", rows));
      PgResult r(PQexec(conn_, ("INSERT INTO " + table + " (" + list + ") SELECT " + list +
                                " FROM " + staging + " ON CONFLICT DO NOTHING")
                                   .c_str()));
      KT_RETURN_IF_ERROR(Check(r.get(), "cannot insert into " + table));
      return static_cast<size_t>(std::strtoull(PQcmdTuples(r.get()), nullptr, 10));
    };
    Result<size_t> added = work();
    if (!added.ok()) {
      if (own) Rollback();
      return added.status();
    }
    if (own) KT_RETURN_IF_ERROR(Commit());
    return added;
  }

  Status Begin() override { return Exec("BEGIN"); }
  Status Commit() override { return Exec("COMMIT"); }
  void Rollback() override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)Exec("ROLLBACK");
  }
  // One key for every khost ("ktune" in ASCII): one database's migrations never run twice at once.
  Status LockForMigration() override { return Exec("SELECT pg_advisory_xact_lock(461609545317)"); }

 private:
  Status Check(PGresult* r, const std::string& what) {
    const ExecStatusType s = PQresultStatus(r);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_COPY_IN) return Status::Ok();
    const std::string m = location_ + ": " + what + ": " + FirstLine(PQresultErrorMessage(r));
    if (PQstatus(conn_) == CONNECTION_BAD) return Unavailable(m + " (the server closed the link)");
    return IoError(m);
  }

  Status Copy(const std::string& sql, const std::vector<SqlRow>& rows) {
    PgResult start(PQexec(conn_, sql.c_str()));
    KT_RETURN_IF_ERROR(Check(start.get(), "cannot copy"));
    std::string buffer;
    auto flush = [&]() -> Status {
      if (PQputCopyData(conn_, buffer.data(), static_cast<int>(buffer.size())) != 1) {
        return IoError(location_ + ": cannot copy: " + FirstLine(PQerrorMessage(conn_)));
      }
      buffer.clear();
      return Status::Ok();
    };
    for (const SqlRow& row : rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        if (i) buffer += '\t';
        AppendCopyField(buffer, row[i]);
      }
      buffer += '\n';
      if (buffer.size() > (1u << 20)) KT_RETURN_IF_ERROR(flush());
    }
    if (!buffer.empty()) KT_RETURN_IF_ERROR(flush());
    if (PQputCopyEnd(conn_, nullptr) != 1) {
      return IoError(location_ + ": cannot copy: " + FirstLine(PQerrorMessage(conn_)));
    }
    PgResult end(PQgetResult(conn_));
    Status s = Check(end.get(), "cannot copy");
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
    return s;
  }

  static std::vector<SqlRow> RowsOf(PGresult* r) {
    std::vector<SqlRow> rows;
    const int n = PQntuples(r), columns = PQnfields(r);
    rows.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      SqlRow row;
      row.reserve(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(r, i, c)) {
          row.emplace_back(std::monostate{});
          continue;
        }
        const char* text = PQgetvalue(r, i, c);
        switch (PQftype(r, c)) {
          case kInt2:
          case kInt4:
          case kInt8:
            row.emplace_back(static_cast<int64_t>(std::strtoll(text, nullptr, 10)));
            break;
          case kBool:
            row.emplace_back(static_cast<int64_t>(text[0] == 't'));
            break;
          case kFloat4:
          case kFloat8:
          case kNumeric:
            row.emplace_back(std::strtod(text, nullptr));
            break;
          default:
            row.emplace_back(std::string(text, static_cast<size_t>(PQgetlength(r, i, c))));
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  PGconn* conn_;
  std::string location_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url) {
  const std::string location = WithoutPassword(url);
  // A server that does not answer is an error after 10 s, not a hang (libpq waits for ever by
  // default); a connect_timeout in the URL, expanded after it, still decides.
  const char* keys[] = {"connect_timeout", "dbname", nullptr};
  const char* values[] = {"10", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!conn) return ResourceExhausted(location + ": cannot connect: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string m = FirstLine(PQerrorMessage(conn));
    PQfinish(conn);
    return Unavailable(location + ": cannot connect: " + m);
  }
  PQsetErrorVerbosity(conn, PQERRORS_TERSE);
  PgResult quiet(PQexec(conn, "SET client_min_messages = warning"));
  return std::unique_ptr<SqlConnection>(std::make_unique<PostgresConnection>(conn, location));
}

}  // namespace ktune::host
