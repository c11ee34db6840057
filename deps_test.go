package sqlmcp_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowed lists, for each package, the non-standard imports it may use.
// Imports point one way: guard under source under schema under tools.
// source knows no engine and no driver: each engine is a package under it
// (source/sqlite, source/postgres) that imports source, guard and its own
// driver, and nothing above source imports an engine but source/builtin,
// which lists the built-in ones, and the programs that open databases
// (cmd/sqlmcp, eval, and internal/dbtest for tests). An optional engine
// with a large library (DuckDB) is imported by cmd/sqlmcp alone.
// Change this list on purpose, never to make a build pass.
var allowed = map[string][]string{
	".":                  {},
	"guard":              {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/internal/text", "github.com/mattn/go-sqlite3", "github.com/pganalyze/pg_query_go/v6", "github.com/pganalyze/pg_query_go/v6/parser", "google.golang.org/protobuf/encoding/protowire", "google.golang.org/protobuf/proto", "google.golang.org/protobuf/reflect/protoreflect", "github.com/pingcap/tidb/pkg/parser", "github.com/pingcap/tidb/pkg/parser/ast", "github.com/pingcap/tidb/pkg/parser/test_driver"},
	"source":             {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/guard", "github.com/sqlmcp/sqlmcp/internal/text"},
	"policy":             {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/guard", "github.com/sqlmcp/sqlmcp/source", "go.yaml.in/yaml/v3"},
	"source/sqlite":      {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/guard", "github.com/mattn/go-sqlite3"},
	"source/postgres":    {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/internal/text", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/guard", "github.com/jackc/pgx/v5", "github.com/jackc/pgx/v5/pgconn", "github.com/jackc/pgx/v5/pgconn/ctxwatch", "github.com/jackc/pgx/v5/pgproto3", "github.com/jackc/pgx/v5/pgxpool", "github.com/sqlmcp/sqlmcp/internal/rawio"},
	"source/mysql":       {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/guard", "github.com/go-sql-driver/mysql"},
	"source/builtin":     {"github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/source/sqlite", "github.com/sqlmcp/sqlmcp/source/postgres", "github.com/sqlmcp/sqlmcp/source/mysql"},
	"source/duckdb":      {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/guard", "github.com/sqlmcp/sqlmcp/source", "github.com/duckdb/duckdb-go/v2", "github.com/duckdb/duckdb-go/v2/mapping"},
	"schema":             {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/policy", "github.com/sqlmcp/sqlmcp/guard", "go.yaml.in/yaml/v3", "github.com/sqlmcp/sqlmcp/internal/text"},
	"config":             {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/schema", "github.com/sqlmcp/sqlmcp/policy", "github.com/sqlmcp/sqlmcp/identity", "go.yaml.in/yaml/v3"},
	"sources":            {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/config", "github.com/sqlmcp/sqlmcp/policy", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/source/builtin", "github.com/sqlmcp/sqlmcp/source/postgres", "github.com/sqlmcp/sqlmcp/schema"},
	"tools":              {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/identity", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/sources", "github.com/sqlmcp/sqlmcp/schema", "github.com/sqlmcp/sqlmcp/guard", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/google/jsonschema-go/jsonschema", "github.com/rs/zerolog", "github.com/sqlmcp/sqlmcp/internal/sqlscan", "github.com/sqlmcp/sqlmcp/internal/jsonscan", "github.com/sqlmcp/sqlmcp/internal/logline"},
	"agent":              {"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/sqlmcp/sqlmcp/internal/text", "github.com/sqlmcp/sqlmcp/internal/files"},
	"demo":               {"github.com/mattn/go-sqlite3"},
	"eval":               {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/notes", "github.com/sqlmcp/sqlmcp/schema", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/source/builtin", "github.com/sqlmcp/sqlmcp/guard", "github.com/sqlmcp/sqlmcp/agent", "github.com/sqlmcp/sqlmcp/internal/text", "github.com/modelcontextprotocol/go-sdk/mcp"},
	"chart":              {"golang.org/x/image/font", "golang.org/x/image/font/basicfont", "golang.org/x/image/math/fixed"},
	"notes":              {"github.com/sqlmcp/sqlmcp/internal/text", "github.com/sqlmcp/sqlmcp/internal/files", "github.com/sqlmcp/sqlmcp/internal/sqlscan"},
	"internal/modeltest": {},
	"internal/serve":     {"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/modelcontextprotocol/go-sdk/jsonrpc", "github.com/modelcontextprotocol/go-sdk/auth", "github.com/modelcontextprotocol/go-sdk/oauthex", "github.com/go-jose/go-jose/v4", "github.com/go-jose/go-jose/v4/jwt", "github.com/rs/zerolog", "github.com/sqlmcp/sqlmcp/identity", "github.com/sqlmcp/sqlmcp/internal/jsonscan", "github.com/sqlmcp/sqlmcp/internal/logline"},
	"internal/mcptest":   {"github.com/modelcontextprotocol/go-sdk/mcp"},
	// Traces and metrics sit on top, beside cmd/sqlmcp: they hear the tools
	// (tools.Observer) and trace the door's steps (source.Tracer).
	"internal/telemetry": {"github.com/sqlmcp/sqlmcp/guard", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/sources", "github.com/sqlmcp/sqlmcp/tools", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/rs/zerolog",
		"go.opentelemetry.io/otel", "go.opentelemetry.io/otel/attribute", "go.opentelemetry.io/otel/codes", "go.opentelemetry.io/otel/propagation", "go.opentelemetry.io/otel/trace",
		"go.opentelemetry.io/otel/sdk/resource", "go.opentelemetry.io/otel/sdk/trace",
		"go.opentelemetry.io/proto/otlp/common/v1", "go.opentelemetry.io/proto/otlp/resource/v1", "go.opentelemetry.io/proto/otlp/trace/v1", "google.golang.org/protobuf/proto"},
	"internal/text":      {},
	"identity":           {},
	"audit":              {"github.com/rs/zerolog"},
	"internal/sqlscan":   {},
	"internal/jsonscan":  {},
	"internal/logline":   {"github.com/rs/zerolog"},
	"internal/term":      {"github.com/sqlmcp/sqlmcp/internal/text", "golang.org/x/term"},
	"internal/toolstest": {"github.com/sqlmcp/sqlmcp", "github.com/sqlmcp/sqlmcp/internal/mcptest", "github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/source/builtin", "github.com/sqlmcp/sqlmcp/schema", "github.com/sqlmcp/sqlmcp/tools", "github.com/sqlmcp/sqlmcp/config", "github.com/sqlmcp/sqlmcp/sources", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/rs/zerolog"},
	"internal/files":     {},
	"internal/rawio":     {},
	"internal/dbtest":    {"github.com/sqlmcp/sqlmcp/source", "github.com/sqlmcp/sqlmcp/source/builtin", "github.com/mattn/go-sqlite3", "github.com/jackc/pgx/v5", "github.com/go-sql-driver/mysql"},
	"cmd/sqlmcp":         {"*"},
	// The benchmark and the soak: their own clients, the bare drivers as floors.
	"bench/ab":                {"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"},
	"bench/internal/mcpbench": {"github.com/jackc/pgx/v5", "github.com/mattn/go-sqlite3", "github.com/go-sql-driver/mysql"},
	"bench/perf":              {"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench", "github.com/jackc/pgx/v5", "github.com/mattn/go-sqlite3", "github.com/go-sql-driver/mysql"},
	"bench/soak":              {"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench", "github.com/jackc/pgx/v5"},
}

func TestImportDirection(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		allow, ok := allowed[dir]
		if !ok {
			t.Errorf("package %s is not in deps_test.go's list: add it with its allowed imports", dir)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.Contains(strings.Split(p, "/")[0], ".") || p == "C" {
				continue // the standard library
			}
			if !permitted(allow, p) {
				t.Errorf("%s imports %s, which deps_test.go does not allow", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func permitted(allow []string, p string) bool {
	for _, a := range allow {
		if a == "*" || a == p {
			return true
		}
	}
	return false
}

// TestCmdIsThin holds cmd/sqlmcp to short files: flags and environment in,
// a server or a command out; anything longer belongs in a package.
func TestCmdIsThin(t *testing.T) {
	files, err := filepath.Glob("cmd/sqlmcp/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n >= 300 {
			t.Errorf("%s has %d lines; keep every cmd file under 300", f, n)
		}
	}
}
