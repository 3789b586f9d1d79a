// The backends' shared helpers: values as messages show them, and URLs without their passwords.
#include "host/db/sql.h"

#include <cmath>
#include <cstdio>

namespace ktune::host {

std::string SqlText(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return "NULL";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return buf;
  }
  return std::get<std::string>(v);
}

int64_t SqlInt(const SqlValue& v, int64_t fallback) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  return fallback;
}

double SqlReal(const SqlValue& v, double fallback) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return fallback;
}

std::optional<double> SqlOptionalReal(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  return SqlReal(v);
}

std::string SqlString(const SqlValue& v, const std::string& fallback) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return fallback;
}

Status CheckWidths(const std::string& table, const std::vector<std::string>& columns,
                   const std::vector<SqlRow>& rows) {
  for (const SqlRow& row : rows) {
    if (row.size() != columns.size()) {
      return InternalError("a row of " + std::to_string(row.size()) + " values for the " +
                           std::to_string(columns.size()) + " columns of " + table);
    }
  }
  return Status::Ok();
}

std::string WithoutPassword(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t from = scheme + 3;
  const size_t at = url.find('@', from);
  const size_t slash = url.find('/', from);
  if (at == std::string::npos || (slash != std::string::npos && slash < at)) return url;
  const size_t colon = url.find(':', from);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + url.substr(at);
}

}  // namespace ktune::host
