// The tuning database's schema, versioned: an ordered list of migrations, each a step from one
// version to the next, applied in one transaction that holds every other writer off, and
// recorded in the table ktune_schema. A database newer than this khost is refused (it may hold
// what this khost would misread); an older one is migrated as it is opened. docs/DATABASE.md
// describes the tables.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/db/sql.h"

namespace ktune::host {

struct Migration {
  int version;              // the version it makes, from 1 up
  const char* description;  // for people, kept in ktune_schema
  const char* sql;          // statements both backends take
};
const std::vector<Migration>& Migrations();
int LatestSchemaVersion();

// The version `db` is at: 0 for a database without ktune's tables.
Result<int> SchemaVersion(SqlConnection& db);

// Brings `db` to LatestSchemaVersion(): an error when it is newer (naming both versions).
Status Migrate(SqlConnection& db);

}  // namespace ktune::host
