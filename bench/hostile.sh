#!/usr/bin/env bash
# Hostile shapes against sqlmcp's memory bound (issue 11): each shape runs through run_query on a fresh
# `sqlmcp serve`, and the server's peak RSS (VmHWM) is checked against the README's formula
#   peak <= idle + 2 * N * (6*M + 32*B + 32*C + 64*R),   M = B + C + 64 KiB
# (B --max-bytes, C --max-cell-bytes, R --max-rows-limit, N calls at once, idle: the same server's peak
# after SELECT 1). It prints one line per shape and exits 1 when any is over.
#   bash bench/hostile.sh [pg] [sqlite] [duckdb]      (default: pg and sqlite)
# On duckdb the bound is sqlmcp's own, as on the others; DuckDB's worker process is bounded apart, by
# the system (RLIMIT_DATA: memory_limit and 1 GiB), and each shape must end in an error, not an answer.
# Env: SQLMCP_BIN (default: build ./cmd/sqlmcp), BEFORE_BIN (another build to measure beside it, e.g. the
#      previous commit's; its lines are for comparison and never fail the run), PGURL (default
#      postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), ARGS (more serve flags, e.g.
#      "--max-bytes 65536"), FULL=1 for the issue's own sizes (gigabytes on the database side and, before
#      the fix, in sqlmcp: only on a machine of your own), NODE (default node, >= 18), OUT (default: a
#      temporary directory; the servers' logs).
# The default sizes were measured safe for a shared database server: the values stream from the server,
# so its memory stays at a few values, and the arrays are kept to a few million elements.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PGURL=${PGURL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
NODE=${NODE:-node}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- pg sqlite
if [ -z "${SQLMCP_BIN:-}" ]; then
  (cd "$REPO" && go build -o "$OUT/sqlmcp" ./cmd/sqlmcp)
  SQLMCP_BIN=$OUT/sqlmcp
fi

# The flags the formula reads: the defaults, or what ARGS sets.
flag() { local v; v=$(grep -o -- "--$1[ =][0-9]*" <<< "${ARGS:-}" | grep -o '[0-9]*$' || true); echo "${v:-$2}"; }
B=$(flag max-bytes 262144)
C=$(flag max-cell-bytes 2048)
R=$(flag max-rows-limit 1000)
M=$((B + C + 65536))
PER_CALL_KB=$(((6 * M + 32 * B + 32 * C + 64 * R) / 1024))

if [ "${FULL:-}" = 1 ]; then
  ROWS=200 UNKNOWN=200 ARRAY=30000000 BIG=100000000 ZCOLS=40 ZSIZE=60000000 HEX=30000000
else
  ROWS=100 UNKNOWN=40 ARRAY=5000000 BIG=100000000 ZCOLS=8 ZSIZE=30000000 HEX=10000000
fi
wide=$(for i in $(seq 40); do printf "repeat('w', 1000000) AS c%d, " "$i"; done)
zblobs=$(for i in $(seq "$ZCOLS"); do printf "zeroblob(%d) AS z%d, " "$ZSIZE" "$i"; done)

# shape NAME CONC SQL: one line per engine and binary.
fail=0
run() { # engine name conc sql bin label
  local engine=$1 name=$2 conc=$3 sql=$4 bin=$5 label=$6 db idle out peak limit verdict
  case $engine in
    pg) db=(--db "$PGURL") ;;
    sqlite) db=(--demo --cache-dir "$OUT/cache") ;;
    duckdb) db=(--db "$OUT/duck" --duckdb-memory-limit 256MB) ;;
  esac
  # shellcheck disable=SC2086
  idle=$("$NODE" "$REPO/bench/hostile.mjs" "$bin" 0 "SELECT 1" "${db[@]}" ${ARGS:-} | grep -o '"peakKB":[0-9-]*' | cut -d: -f2)
  # shellcheck disable=SC2086
  out=$("$NODE" "$REPO/bench/hostile.mjs" "$bin" "$conc" "$sql" "${db[@]}" ${ARGS:-} 2>>"$OUT/client.log" || echo '{"peakKB":-1,"results":[{"protocolError":"client failed"}]}')
  peak=$(grep -o '"peakKB":[0-9-]*' <<< "$out" | cut -d: -f2)
  limit=$((idle + 2 * (conc > 0 ? conc : 1) * PER_CALL_KB))
  if [ "$peak" -lt 0 ]; then verdict=DIED; elif [ "$peak" -le "$limit" ]; then verdict=under; else verdict=OVER; fi
  printf '%-7s %-6s %-34s peak %8d kB  idle %7d kB  bound %8d kB  %-5s %s\n' "$engine" "$label" "$name" "$peak" "$idle" "$limit" "$verdict" \
    "$(grep -o '"ms":[0-9]*' <<< "$out" | cut -d: -f2) ms $(grep -o '"text":"[^"]\{0,90\}' <<< "$out" | head -1 | cut -c9-)"
  if [ "$label" = after ] && [ "$verdict" != under ]; then fail=1; fi
}
shape() {
  local engine=$1
  shift
  [ -n "${BEFORE_BIN:-}" ] && run "$engine" "$@" "$BEFORE_BIN" before
  run "$engine" "$@" "$SQLMCP_BIN" after
}

echo "bound per call: $PER_CALL_KB kB (B=$B C=$C R=$R M=$M)"
for engine in "$@"; do
  case $engine in
    pg)
      shape pg "giant cells (20 MB x $ROWS rows)" 0 "SELECT repeat('x', 20000000) FROM generate_series(1, $ROWS)"
      shape pg "40 wide columns (1 MB) x 20 rows" 0 "SELECT ${wide%, } FROM generate_series(1, 20)"
      shape pg "unknown row type, 20 MB x $UNKNOWN" 0 "SELECT a, b.big FROM pg_am a, (SELECT repeat('x', 20000000) AS big OFFSET 0) b, generate_series(1, $UNKNOWN) g"
      shape pg "array_agg of $ARRAY" 0 "SELECT array_agg(1) FROM generate_series(1, $ARRAY)"
      shape pg "one value of $BIG bytes" 0 "SELECT repeat('x', $BIG)"
      shape pg "an error quoting 10 MB" 0 "SELECT repeat('x', 10000000)::int"
      shape pg "8 calls at once, 20 MB x 20 rows" 8 "SELECT repeat('x', 20000000) FROM generate_series(1, 20)"
      ;;
    sqlite)
      shape sqlite "$ZCOLS zeroblob($ZSIZE) columns" 0 "SELECT ${zblobs%, }"
      shape sqlite "replace(hex(zeroblob($HEX)))" 0 "SELECT replace(hex(zeroblob($HEX)), '0', 'x')"
      shape sqlite "8 calls at once, hex of 10 MB" 8 "SELECT hex(zeroblob(5000000))"
      ;;
    duckdb)
      # A single function call builds a value of gigabytes outside memory_limit: the worker's bound or
      # its stop at the timeout ends each; sqlmcp sees only what an answer shows.
      mkdir -p "$OUT/duck" && printf 'id,name\n1,Ada\n2,Linus\n' > "$OUT/duck/people.csv"
      shape duckdb "repeat of 2 GB" 0 "SELECT length(repeat('x', 2000000000))"
      shape duckdb "a list of 300M" 0 "SELECT len(range(300000000))"
      shape duckdb "doubling through 28 WITH queries" 0 "$(printf "WITH a0 AS (SELECT 'xxxxxxxxxxxxxxxx' AS s)"; for i in $(seq 28); do printf ", a%d AS (SELECT s || s AS s FROM a%d)" "$i" $((i - 1)); done; printf ' SELECT length(s) FROM a28')"
      shape duckdb "8 calls at once, 20 MB x 20 rows" 8 "SELECT repeat('x', 20000000) FROM range(20)"
      ;;
    *) echo "unknown engine $engine: pg, sqlite or duckdb" >&2; exit 2 ;;
  esac
done
exit $fail
