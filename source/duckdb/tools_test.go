package duckdb_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
	"github.com/sqlmcp/sqlmcp/tools"
)

// serveFolder opens dir as --db does, with DuckDB listed first, and serves
// it through the six tools to a real MCP client over in-memory transports.
func serveFolder(t *testing.T, dir string, annotations string, limits sqlmcp.Limits) *mcp.ClientSession {
	t.Helper()
	db, err := source.Open(t.Context(), dir, &source.Options{Limits: limits, Engines: []source.Engine{duckdb.Engine{}}})
	must(t, err)
	t.Cleanup(func() { db.Close() })
	opts := &schema.Options{}
	if annotations != "" {
		opts.Annotations = filepath.Join(t.TempDir(), "notes.yaml")
		must(t, os.WriteFile(opts.Annotations, []byte(annotations), 0o644))
	}
	cat, err := schema.New(db, opts)
	must(t, err)
	must(t, cat.IndexValues(t.Context()))
	srv := tools.NewServer(db, cat, nil)
	ct, st := mcp.NewInMemoryTransports()
	_, err = srv.Connect(t.Context(), st, nil)
	must(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), ct, nil)
	must(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns the text the model reads and whether it
// is an error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, _ := callRaw(t, cs, name, args)
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// callStructured calls a tool and decodes its structured output into out.
func callStructured(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	_, raw := callRaw(t, cs, name, args)
	must(t, json.Unmarshal(raw, out))
}

func callRaw(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, []byte) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	must(t, err)
	raw, err := json.Marshal(res.StructuredContent)
	must(t, err)
	return res, raw
}

// TestSixTools serves a folder of files and calls every tool on it, as a
// model would, with an annotations file describing a view.
func TestSixTools(t *testing.T) {
	dir, _ := fixture(t)
	notes := "tables:\n  people:\n    description: Customers exported from the CRM\n    columns:\n      full name: Given and family name\n"
	cs := serveFolder(t, dir, notes, sqlmcp.Limits{MaxCellBytes: 64})
	for _, c := range []struct {
		name string
		args map[string]any
		want []string // each must appear in the text
	}{
		{"list_tables", nil, []string{"events (view, 3 rows", "nested (view, 100 rows, 5 columns): ", "Nested values, one per id", // DuckDB's own comment, marked as data
			"people (view, 3 rows, 4 columns): Customers exported from the CRM", "sales (view, 50 rows, 3 columns)"}},
		{"describe_table", map[string]any{"table": "nested"}, []string{`BIGINT[]`, `STRUCT(a BIGINT,b VARCHAR)`, `MAP(VARCHAR,BIGINT)`, "the id and the next"}},
		{"describe_table", map[string]any{"table": "people"}, []string{`"full name"`, "Given and family name", `e-mail, primary`}},
		{"search_schema", map[string]any{"query": "e-mail"}, []string{`people`, `e-mail, primary`}},
		{"sample_values", map[string]any{"table": "people", "column": "full name"}, []string{"'Ada Lovelace'", "'O''Brien, Pat'"}},
		{"distinct_values", map[string]any{"table": "events", "column": "kind"}, []string{"'click': 2", "'view': 1"}},
		{"run_query", map[string]any{"sql": "SELECT year, sum(amount) AS total FROM sales GROUP BY ALL ORDER BY year"}, []string{"2024", "4350", "2025", "3800"}},
		{"run_query", map[string]any{"sql": "SELECT id, pair, point, attrs FROM nested ORDER BY id LIMIT 1"}, []string{`[0,1]`, `"b":"x0"`, `"k":0`}},
	} {
		text, isErr := call(t, cs, c.name, c.args)
		if isErr {
			t.Errorf("%s %v: error %s", c.name, c.args, text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: %q missing from %s", c.name, c.args, w, text)
			}
		}
	}
}

// TestRunQueryBounds: a refusal names the views; a result over the row
// cap and one over the byte cap are cut exactly and say so; a long value
// is cut to the cell limit.
func TestRunQueryBounds(t *testing.T) {
	dir, _ := fixture(t)
	cs := serveFolder(t, dir, "", sqlmcp.Limits{MaxBytes: 4096, MaxCellBytes: 64})
	text, isErr := call(t, cs, "run_query", map[string]any{"sql": "SELECT * FROM read_csv('/etc/passwd')"})
	if !isErr || !strings.Contains(text, "already there as views") {
		t.Errorf("read_csv: %v %s", isErr, text)
	}
	var out struct {
		Rows        [][]any `json:"rows"`
		Truncated   bool    `json:"truncated"`
		TruncatedBy string  `json:"truncated_by"`
	}
	callStructured(t, cs, "run_query", map[string]any{"sql": "SELECT range FROM range(1000000)", "max_rows": 7}, &out)
	if len(out.Rows) != 7 || !out.Truncated || out.TruncatedBy != "rows" || out.Rows[6][0] != float64(6) {
		t.Errorf("row cap: %v, truncated %v by %q", out.Rows, out.Truncated, out.TruncatedBy)
	}
	out.Rows, out.Truncated = nil, false
	callStructured(t, cs, "run_query", map[string]any{"sql": "SELECT range, repeat('x', 40) FROM range(1000)", "max_rows": 1000}, &out)
	if len(out.Rows) == 0 || len(out.Rows) >= 1000 || !out.Truncated || out.TruncatedBy != "bytes" {
		t.Errorf("byte cap: %d rows, truncated %v by %q", len(out.Rows), out.Truncated, out.TruncatedBy)
	}
	out.Rows = nil
	callStructured(t, cs, "run_query", map[string]any{"sql": "SELECT repeat('y', 10000) AS long"}, &out)
	if s, _ := out.Rows[0][0].(string); len(s) > 200 || !strings.HasPrefix(s, strings.Repeat("y", 64)) {
		t.Errorf("a long cell came as %.120q", s)
	}
}
