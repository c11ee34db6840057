#!/usr/bin/env bash
# Compare sqlmcp with peer MCP database servers (dbhub, server-postgres) in one run.
#   bash bench/peers.sh [BENCH_DIR]     BENCH_DIR: a writable copy of the bench instruments (default /tmp/bench)
# Env: SQLMCP_BIN (default: build ./cmd/sqlmcp into BENCH_DIR/sqlmcp), SCALE (default 1),
#      HTTP=1 (the streamable HTTP profiles instead: sqlmcp-*-http beside dbhub-*-http, on loopback, no token).
set -euo pipefail
BENCH=$(cd "${1:-/tmp/bench}" && pwd)
REPO=$(cd "$(dirname "$0")/.." && pwd)
export SCALE=${SCALE:-1}

# 1. tools and the pinned peers
command -v sqlite3 >/dev/null && command -v bc >/dev/null && command -v psql >/dev/null ||
  { apt-get update && apt-get install -y sqlite3 bc postgresql-client; }
(cd "$BENCH" && npm install --no-audit --no-fund)   # not npm ci

# 2. sqlmcp
if [ -z "${SQLMCP_BIN:-}" ]; then
  (cd "$REPO" && go build -o "$BENCH/sqlmcp" ./cmd/sqlmcp)
  SQLMCP_BIN=$BENCH/sqlmcp
fi
export SQLMCP_BIN

# 3. the shop dataset: SQLite always; PostgreSQL when it can be set up. sqlmcp connects as the
#    read-only role bench_ro (as the owner it would warn that the role could write); the peers as the owner.
cd "$BENCH"
ONLY=sqlite bash load-shop.sh
profiles=(sqlmcp-sqlite dbhub-sqlite dbhub-sqlite-capped)
if [ -n "${HTTP:-}" ]; then profiles=(sqlmcp-sqlite-http dbhub-sqlite-http); fi
if bash pg-setup.sh && ONLY=pg bash load-shop.sh; then
  if [ -n "${HTTP:-}" ]; then profiles+=(sqlmcp-pg-http dbhub-pg-http); else profiles+=(sqlmcp-pg spg-pg dbhub-pg); fi
  export SQLMCP_ARGS_PG=${SQLMCP_ARGS_PG:-"serve --db postgres://bench_ro:bench_ro@127.0.0.1:5432/bench"}
else echo "no PostgreSQL: skipping sqlmcp-pg, spg-pg, dbhub-pg" >&2; fi

# 4. one run, so the figures are comparable; then the table
OUT=out/run-$(date -u +%Y%m%dT%H%M%S)
OUT=$OUT bash suite.sh "${profiles[@]}"
node report.mjs "$OUT"/*.jsonl
