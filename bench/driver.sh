# Sourced by perf.sh and soak.sh: builds sqlmcp (unless SQLMCP_BIN names one) and the Go driver
# ./bench/$1, runs it with the rest of the arguments plus --sqlmcp and --dir, and stops whatever it
# left behind if it died before it could (a throwaway PostgreSQL cluster or MariaDB server under the
# work folder).
#   run_driver NAME ARGS...      exits with the driver's status
# The driver's pid and the work folder are globals: the EXIT trap reads them after run_driver returned.
_driver= _work=
run_driver() {
  local name=$1 repo pgbin status=0
  shift
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  _work=$(mktemp -d "/tmp/sqlmcp-$name-work-XXXXXX")  # the servers' folders go in here
  chmod 755 "$_work"                                   # the server's user must reach it
  pgbin=${SQLMCP_PG_BIN:-/usr/lib/postgresql/15/bin}
  # shellcheck disable=SC2317  # run by the traps
  leftovers() {
    if [ -n "$_driver" ] && kill -0 "$_driver" 2>/dev/null; then kill -TERM "$_driver" 2>/dev/null || true; wait "$_driver" 2>/dev/null || true; fi
    local pid
    for pid in "$_work"/sqlmcp-bench-pg-*/data/postmaster.pid; do
      [ -f "$pid" ] || continue
      if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$pgbin/pg_ctl" -D "$(dirname "$pid")" -m immediate stop >/dev/null 2>&1 || true
      else "$pgbin/pg_ctl" -D "$(dirname "$pid")" -m immediate stop >/dev/null 2>&1 || true; fi
    done
    for pid in "$_work"/sqlmcp-bench-mariadb-*/mariadbd.pid; do
      [ -f "$pid" ] || continue
      pid=$(cat "$pid")
      kill -TERM "$pid" 2>/dev/null || continue
      for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$_work"
  }
  trap leftovers EXIT
  trap 'exit 130' INT TERM
  if [ -z "${SQLMCP_BIN:-}" ]; then
    # Copied once built, as an installed binary is: the file-backed RSS of a
    # binary the linker has just written in place is up to 5 MiB larger,
    # run to run, by how its pages entered the page cache.
    (cd "$repo" && go build -o "$_work/sqlmcp.built" ./cmd/sqlmcp)
    cp "$_work/sqlmcp.built" "$_work/sqlmcp" && rm "$_work/sqlmcp.built"
    SQLMCP_BIN=$_work/sqlmcp
  fi
  (cd "$repo" && go build -o "$_work/$name" "./bench/$name")
  "$_work/$name" --sqlmcp "$SQLMCP_BIN" --dir "$_work" "$@" &
  _driver=$!
  wait "$_driver" || status=$?
  _driver=
  return $status
}
