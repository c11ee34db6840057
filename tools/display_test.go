package tools_test

import (
	"strings"
	"testing"
)

// TestDisplayNamesRoundTrip: a SQLite table whose name holds a dot is
// written as one quoted name wherever a tool names it, and the name as
// written runs in run_query (PostgreSQL's schema.table names are in the
// goldens).
func TestDisplayNamesRoundTrip(t *testing.T) {
	tool := sqliteWith(t, `CREATE TABLE "a.b" (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id));
		INSERT INTO "a.b" VALUES (1, 1)`)
	call := func(t *testing.T, name string, args map[string]any) string {
		t.Helper()
		text, isErr := tool(t, name, args)
		if isErr {
			t.Fatalf("%s failed: %s", name, text)
		}
		return text
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_tables", map[string]any{}, `- "a.b" (table, 1 row, 2 columns)`},
		{"list_tables", map[string]any{"names_only": true}, `- "a.b"` + "\n"},
		{"describe_table", map[string]any{"table": "a.b"}, `table "a.b" (1 row)`},
		{"describe_table", map[string]any{"table": "customers"}, `"a.b"(customer_id) -> customers(id)`},
		{"search_schema", map[string]any{"query": "customer_id"}, `"a.b".customer_id`},
	} {
		if text := call(t, c.tool, c.args); !strings.Contains(text, c.want) {
			t.Errorf("%s %v lacks %q:\n%s", c.tool, c.args, c.want, text)
		}
	}
	if text := call(t, "run_query", map[string]any{"sql": `SELECT count(*) FROM "a.b"`}); !strings.Contains(text, "\n1\n") {
		t.Errorf("the name as written does not run: %s", text)
	}
}
