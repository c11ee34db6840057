#!/usr/bin/env bash
# pgplan.sh: the PostgreSQL backend's peak memory (VmHWM) while it plans the
# doubling WITH chain (a_i AS (SELECT x + x AS x FROM a_{i-1})) at each
# length, outside sqlmcp (sqlmcp's guard refuses it from 15 levels; see
# guard/postgres_cost.go). Run on the database host (it reads
# /proc/<backend pid>/status), as a role that may connect:
#
#   PGURL=postgres://postgres@127.0.0.1:5432/postgres bash bench/pgplan.sh 10 16
#
# Lengths past 16 are refused: every level doubles the memory, and 24
# levels took 18.6 GB and killed the backend, which restarts every session.
set -euo pipefail
from=${1:-10} to=${2:-16}
url=${PGURL:-postgres://postgres@127.0.0.1:5432/postgres}
if (( to > 16 )); then echo "pgplan.sh: at most 16 levels" >&2; exit 2; fi
printf '%-7s %-12s %s\n' levels "VmHWM (kB)" "plan (ms)"
for ((n = from; n <= to; n++)); do
	q="WITH a0 AS (SELECT 1 AS x)"
	for ((i = 1; i <= n; i++)); do q="$q, a$i AS (SELECT x + x AS x FROM a$((i - 1)))"; done
	q="$q SELECT x FROM a$n"
	out=$({ echo 'SELECT pg_backend_pid() AS pid \gset'; echo '\setenv PID :pid'
		echo "SET statement_timeout = '60s';"; echo '\timing on'
		echo "EXPLAIN (COSTS OFF) $q;"; echo '\timing off'
		echo '\! grep -h VmHWM /proc/$PID/status'; } | psql "$url" -X -q -At 2>&1)
	hwm=$(grep VmHWM <<<"$out" | awk '{print $2}')
	ms=$(grep '^Time:' <<<"$out" | awk '{print $2}')
	printf '%-7s %-12s %s\n' "$n" "$hwm" "$ms"
done
