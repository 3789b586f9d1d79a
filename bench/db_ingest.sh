#!/usr/bin/env bash
# The tuning database's benchmark (docs/BENCHMARKS.md): bench/db_ingest on an SQLite file and on a
# throwaway PostgreSQL server started here (initdb and pg_ctl on a Unix socket in a temporary
# directory, as nobody when run as root; fsync on, as a real server), removed afterwards.
#
#   bench/db_ingest.sh [BUILD_DIR] [LINES]     (default build/, 1000000)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
lines=${2:-1000000}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/ktune-dbbench-XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then
  chown nobody "$dir"
  as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
cleanup() {
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U ktune --no-sync -E UTF8 >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-k $dir -c listen_addresses=" start >/dev/null
mkdir -p "$dir/sqlite" && chmod 777 "$dir/sqlite"
"$build/bin/db_ingest" --lines "$lines" --sqlite "$dir/sqlite/tuning.db" \
  --pg "postgresql://ktune@/postgres?host=$dir"
