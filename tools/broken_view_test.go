package tools_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestBrokenViews: a view over a dropped table, and a view that calls a
// function the guard refuses, are listed and described as broken with the
// engine's reason, and every other table keeps working in all five schema
// tools.
func TestBrokenViews(t *testing.T) {
	call := sqliteWith(t, `CREATE TABLE gone (y);
		CREATE VIEW dangling AS SELECT y FROM gone;
		DROP TABLE gone;
		CREATE VIEW loader AS SELECT load_extension('x') AS z;
		CREATE VIEW fine AS SELECT name FROM customers`)
	t.Run("list_tables", func(t *testing.T) {
		text, isErr := call(t, "list_tables", map[string]any{})
		if isErr {
			t.Fatalf("list_tables failed: %s", text)
		}
		for _, want := range []string{"- customers (table", "- fine (view, 4 rows, 1 column)",
			"- dangling (view, rows unknown, 0 columns) [broken, cannot be read: no such table: main.gone]",
			"- loader (view, rows unknown, 0 columns) [broken, cannot be read: "} {
			if !strings.Contains(text, want) {
				t.Errorf("list_tables lacks %q:\n%s", want, text)
			}
		}
	})
	t.Run("describe_table", func(t *testing.T) {
		for view, reason := range map[string]string{"dangling": "no such table: main.gone", "loader": "load_extension"} {
			text, isErr := call(t, "describe_table", map[string]any{"table": view})
			if isErr || !strings.Contains(text, "broken: it cannot be read: ") || !strings.Contains(text, reason) {
				t.Errorf("describe_table %s: got %q (error %v), want it described as broken, naming %q", view, text, isErr, reason)
			}
		}
		for _, table := range []string{"customers", "fine"} {
			if text, isErr := call(t, "describe_table", map[string]any{"table": table}); isErr || !strings.Contains(text, "- name") {
				t.Errorf("describe_table %s: %s", table, text)
			}
		}
	})
	t.Run("search_schema", func(t *testing.T) {
		if text, isErr := call(t, "search_schema", map[string]any{"query": "email"}); isErr || !strings.Contains(text, "customers.email") {
			t.Errorf("search_schema: %s", text)
		}
	})
	for _, tool := range []string{"sample_values", "distinct_values"} {
		t.Run(tool, func(t *testing.T) {
			if text, isErr := call(t, tool, map[string]any{"table": "customers", "column": "name"}); isErr || !strings.Contains(text, "Ada Lovelace") {
				t.Errorf("%s on customers: %s", tool, text)
			}
			if text, isErr := call(t, tool, map[string]any{"table": "fine", "column": "name"}); isErr || !strings.Contains(text, "Ada Lovelace") {
				t.Errorf("%s on a working view: %s", tool, text)
			}
			text, isErr := call(t, tool, map[string]any{"table": "dangling", "column": "y"})
			if !isErr || !strings.Contains(text, "view dangling is broken and cannot be read: no such table: main.gone") {
				t.Errorf("%s on a broken view: got %q, want an error saying it is broken", tool, text)
			}
		})
	}
	t.Run("run_query", func(t *testing.T) {
		if text, isErr := call(t, "run_query", map[string]any{"sql": "SELECT count(*) FROM customers"}); isErr {
			t.Errorf("run_query: %s", text)
		}
	})
}

// sqliteWith serves a copy of the SQLite fixture after running setup on
// it, and returns a function that calls a tool and gives its text and
// whether it is an error.
func sqliteWith(t *testing.T, setup string) func(t *testing.T, tool string, args map[string]any) (string, bool) {
	path := dbtest.SQLiteFile(t)
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Exec(setup)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	cs := serve(t, dbtest.Open(t, path, nil), zerolog.Nop())
	return func(t *testing.T, tool string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
}
