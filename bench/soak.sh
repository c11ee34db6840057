#!/usr/bin/env bash
# Soak under load with faults (issue 20): N clients over streamable HTTP for M minutes against
# `sqlmcp serve --db postgres://...` with a mix of the six tools, cancellations and a few runaway
# queries, while faults hit a throwaway PostgreSQL cluster this run starts itself (initdb into a
# temporary folder, its own port, 16MB of shared buffers; as root the server runs as postgres):
# pg_terminate_backend of sqlmcp's connections, and full restarts, in turn.
#   bash bench/soak.sh [FLAGS...]          e.g. bash bench/soak.sh --duration 10m --clients 16
# Flags go to the driver (bench/soak/main.go lists them): --clients (8), --duration (3m),
# --warmup (30s), --fault-every (30s), --faults (kill,restart | none), --outage (2s), --grace (1s),
# --runaway-every (20s), --timeout (sqlmcp's, 5s), --cancel (0.03), --args (more serve flags).
# Env: SQLMCP_BIN (default: build ./cmd/sqlmcp), OUT (default: a temporary folder, kept: soak.md,
#      sqlmcp.log), SQLMCP_PG_BIN (PostgreSQL's server binaries, default /usr/lib/postgresql/15/bin).
# Prints the report (calls, errors by kind, explained or not, p50/p99, RSS over time, backends left)
# and writes it to OUT/soak.md. Exit 0: no unexplained error; 3: some; 1: the run itself failed.
# Everything it starts is stopped at the end, on Ctrl-C too.
set -euo pipefail
. "$(dirname "$0")/driver.sh"
OUT=${OUT:-$(mktemp -d /tmp/sqlmcp-soak-XXXXXX)}
export SQLMCP_SOAK_COMMAND="bash bench/soak.sh $*"
status=0
run_driver soak --out "$OUT" "$@" || status=$?
echo "details: $OUT" >&2
exit $status
