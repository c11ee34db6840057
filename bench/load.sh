#!/usr/bin/env bash
# Load benchmark: C concurrent clients (official TypeScript SDK, streamable HTTP, one session each) for T
# seconds against `sqlmcp serve --http`, each calling run_query with SELECT 1 and a point lookup in turn;
# calls/s, p50, p99, errors (must be 0), the server's RSS at start and end, and CPU per call.
#   bash bench/load.sh [TARGET...]    TARGET: demo (the bundled demo, the default) or pg (the shop
#                                     database of ../shared/bench, SCALE=1, as the read-only role bench_ro)
# Env: SQLMCP_BIN (default: build ./cmd/sqlmcp), CONC (default "1 8 32"), SECS (default 20), WARMUP (seconds,
#      default 2), PGURL (default postgres://bench_ro:bench_ro@127.0.0.1:5432/bench), PG_POINT (its point
#      lookup), SQLMCP_ARGS (more serve flags; keep the log level at info or debug: the URL comes from
#      the start event), NODE (default node: Node >= 18), OUT (default: a temporary
#      directory, kept: the server logs and one JSON line per run in load.jsonl).
# One server per target serves every C in turn, so its RSS across the runs shows whether memory stays flat.
# It requires a bearer token (random, passed in SQLMCP_AUTH_TOKENS), as a production server would.
# The clients run on the same machine as the server: read the figures with the CPU per call beside them.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CONC=${CONC:-"1 8 32"}
SECS=${SECS:-20}
WARMUP=${WARMUP:-2}
PGURL=${PGURL:-postgres://bench_ro:bench_ro@127.0.0.1:5432/bench}
PG_POINT=${PG_POINT:-"SELECT * FROM customers WHERE id = 1 + ({i} * 7919) % 100000"}
NODE=${NODE:-node}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- demo
[ -d "$REPO/bench/node_modules/@modelcontextprotocol/sdk" ] ||
  npm install --prefix "$REPO/bench" --no-audit --no-fund --loglevel=error
if [ -z "${SQLMCP_BIN:-}" ]; then
  (cd "$REPO" && go build -o "$OUT/sqlmcp" ./cmd/sqlmcp)
  SQLMCP_BIN=$OUT/sqlmcp
fi
TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')

pid=
trap '[ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }' EXIT
for target in "$@"; do
  case $target in
    demo) db=(--demo --cache-dir "$OUT/cache"); point=() ;;
    pg)   db=(--db "$PGURL"); point=(--point "$PG_POINT") ;;
    *)    echo "unknown target $target: demo or pg" >&2; exit 2 ;;
  esac
  log=$OUT/server-$target.log
  SQLMCP_AUTH_TOKENS=$TOKEN "$SQLMCP_BIN" serve "${db[@]}" --http 127.0.0.1:0 ${SQLMCP_ARGS:-} > /dev/null 2> "$log" &
  pid=$!
  url=
  for _ in $(seq 300); do
    url=$(grep -o '"event":"start".*"url":"[^"]*"' "$log" | grep -o '"url":"[^"]*"' | cut -d'"' -f4 || true)
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "sqlmcp exited:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "$url" ] || { echo "sqlmcp did not start:" >&2; cat "$log" >&2; exit 1; }
  for c in $CONC; do
    echo "== $target c=$c ${SECS}s at $url" >&2
    SQLMCP_LOAD_TOKEN=$TOKEN "$NODE" "$REPO/bench/load.mjs" --label "$target" --url "$url" --pid "$pid" \
      -c "$c" -t "$SECS" --warmup "$WARMUP" "${point[@]}" | tee -a "$OUT/load.jsonl" >&2 || { echo "errors: see above and $log" >&2; exit 1; }
  done
  kill -TERM "$pid"
  wait "$pid" || { echo "sqlmcp did not exit 0 on SIGTERM" >&2; exit 1; }
  pid=
done

# The table.
"$NODE" -e '
  const mib = (kb) => (kb / 1024).toFixed(1);
  console.log("| target | c | calls | calls/s | p50 ms | p99 ms | SELECT 1 p50/p99 | point p50/p99 | errors | RSS MiB start / warm / end (max) | server CPU ms/call | client CPU ms/call |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
    const j = JSON.parse(l);
    console.log(`| ${j.label} | ${j.concurrency} | ${j.calls} | ${j.calls_per_s} | ${j.p50_ms} | ${j.p99_ms} | ${j.trivial.p50_ms} / ${j.trivial.p99_ms} | ${j.point.p50_ms} / ${j.point.p99_ms} | ${j.errors} | ${mib(j.rss_kb_start)} / ${mib(j.rss_kb_warm)} / ${mib(j.rss_kb_end)} (${mib(j.rss_kb_max)}) | ${j.server_cpu_ms_per_call} | ${j.client_cpu_ms_per_call} |`);
  }' "$OUT/load.jsonl"
echo "details: $OUT" >&2
