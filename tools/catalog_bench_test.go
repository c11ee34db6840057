package tools_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

// BenchmarkCatalog measures describe_table, list_tables and search_schema,
// warm, through the MCP server and client, on the fixture grown by 10, 200
// and 2,000 generated tables, on SQLite and (when SQLMCP_TEST_POSTGRES is
// set) PostgreSQL. Each generated table has ten rows; describe_table reads
// "facts", of 50,000 rows. ns/op is the time of one call; resp-B the size
// of its JSON result.
func BenchmarkCatalog(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, n := range []int{10, 200, 2000} {
			b.Run(fmt.Sprintf("%s/tables=%d", engine, n), func(b *testing.B) {
				cs := serve(b, grown(b, engine, n), zerolog.Nop())
				calls := []struct {
					tool string
					args map[string]any
				}{
					{"describe_table", map[string]any{"table": "facts"}},
					{"list_tables", map[string]any{}},
					{"search_schema", map[string]any{"query": "amount owed"}},
				}
				for _, c := range calls {
					b.Run(c.tool, func(b *testing.B) {
						params := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
						res := callOK(b, cs, params) // fills the caches
						for b.Loop() {
							callOK(b, cs, params)
						}
						raw, _ := json.Marshal(res)
						b.ReportMetric(float64(len(raw)), "resp-B")
					})
				}
			})
		}
	}
}

// BenchmarkDescribeDemo measures describe_table, warm, on the bundled demo
// database's biggest table.
func BenchmarkDescribeDemo(b *testing.B) {
	path := filepath.Join(b.TempDir(), "demo.sqlite")
	if err := demo.Build(path); err != nil {
		b.Fatal(err)
	}
	db := dbtest.Open(b, path, nil)
	cat, err := schema.New(db, nil)
	if err != nil {
		b.Fatal(err)
	}
	tables, err := cat.Tables(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	biggest, most := "", int64(-1)
	for _, t := range tables {
		if n, _, ok := cat.RowCount(b.Context(), t); ok && n > most {
			biggest, most = t.Name, n
		}
	}
	cs := mcptest.Connect(b, tools.NewServer(db, cat, nil))
	params := &mcp.CallToolParams{Name: "describe_table", Arguments: map[string]any{"table": biggest}}
	callOK(b, cs, params)
	for b.Loop() {
		callOK(b, cs, params)
	}
	b.ReportMetric(float64(most), "rows")
}

// callOK calls a tool and fails b unless it answers without error.
func callOK(b *testing.B, cs *mcp.ClientSession, params *mcp.CallToolParams) *mcp.CallToolResult {
	b.Helper()
	res, err := cs.CallTool(b.Context(), params)
	if err != nil || res.IsError {
		b.Fatal(err, res)
	}
	return res
}

// grown returns the fixture on engine with n generated tables of ten rows
// added, each referring to the one before, and "facts" of 50,000 rows.
func grown(b *testing.B, engine string, n int) *source.DB {
	b.Helper()
	const facts = `CREATE TABLE facts (id INTEGER PRIMARY KEY, label TEXT NOT NULL, amount REAL);`
	if engine == "sqlite" {
		path := dbtest.SQLiteFile(b)
		w, err := sql.Open("sqlite3", path)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		var ddl strings.Builder
		ddl.WriteString("BEGIN;" + facts + `
			WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 50000)
			INSERT INTO facts SELECT i, 'label ' || (i % 40), i * 1.5 FROM g;`)
		for i := range n {
			fmt.Fprintf(&ddl, `CREATE TABLE gen_%04d (id INTEGER PRIMARY KEY, name TEXT, amount_due REAL, prev INTEGER REFERENCES gen_%04d(id));
				WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 10)
				INSERT INTO gen_%04d SELECT i, 'item ' || i, i * 2.5, NULL FROM g;`, i, max(i-1, 0), i)
		}
		ddl.WriteString("COMMIT;")
		if _, err := w.Exec(ddl.String()); err != nil {
			b.Fatal(err)
		}
		return dbtest.Open(b, path, nil)
	}
	if engine != "postgres" {
		b.Fatalf("unknown engine %q", engine)
	}
	dsn := dbtest.PostgresDSN(b) // skips when there is no server
	dbtest.PostgresExec(b, dsn, facts+`
		INSERT INTO facts SELECT g, 'label ' || (g % 40), g * 1.5 FROM generate_series(1, 50000) AS g`)
	// A hundred tables a transaction: each takes locks, and the server's
	// lock table is shared.
	for from := 0; from < n; from += 100 {
		dbtest.PostgresExec(b, dsn, fmt.Sprintf(`DO $$ BEGIN FOR i IN %d..%d LOOP
			EXECUTE format('CREATE TABLE gen_%%1$s (id integer PRIMARY KEY, name text, amount_due real, prev integer REFERENCES gen_%%2$s(id));
				INSERT INTO gen_%%1$s SELECT g, ''item '' || g, g * 2.5, NULL FROM generate_series(1, 10) AS g',
				lpad(i::text, 4, '0'), lpad(greatest(i - 1, 0)::text, 4, '0'));
		END LOOP; END $$`, from, min(from+100, n)-1))
	}
	return dbtest.Open(b, dsn, nil)
}
