#!/usr/bin/env bash
# Builds the release binary: static, stripped, extension loading compiled
# out of SQLite. The Dockerfile runs this same script, and CI runs it, so
# the two builds cannot drift apart. Needs gcc (cgo).
#
#   scripts/build.sh [OUTPUT]    # default: ./sqlmcp
#
# SQLMCP_BUILD_TAGS adds build tags: noduckdb leaves DuckDB's library (about 51 MB)
# out, nomysql MySQL/MariaDB (TiDB's parser, about 13 MB); "noduckdb nomysql" is
# the lean server, SQLite and PostgreSQL only.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-sqlmcp}
version=${SQLMCP_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
CGO_ENABLED=1 go build -trimpath \
  -tags "osusergo netgo sqlite_omit_load_extension ${SQLMCP_BUILD_TAGS:-}" \
  -ldflags "-s -w -X main.version=${version} -linkmode external -extldflags -static" \
  -o "$out" ./cmd/sqlmcp
echo "built $out ($version)"
