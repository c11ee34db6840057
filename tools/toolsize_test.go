package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/tools"
)

// maxToolList is the most the tools/list result may weigh: every
// conversation pays it in tokens.
const maxToolList = 6 << 10

// TestToolListSize measures the tools/list result as a client receives it,
// with a version string as long as a development build's, and checks that
// every tool still lists a description and an object output schema with
// properties.
func TestToolListSize(t *testing.T) {
	cs := serveWith(t, dbtest.SQLite(t, nil), &tools.Options{Version: "v0.0.0-20261201105500-0123456789ab+dirty"})
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > maxToolList {
		t.Errorf("tools/list is %d bytes, want at most %d", len(raw), maxToolList)
	}
	t.Logf("tools/list: %d bytes", len(raw))
	if len(res.Tools) != 6 {
		t.Errorf("%d tools, want 6", len(res.Tools))
	}
	for _, tl := range res.Tools {
		var out struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		b, _ := json.Marshal(tl.OutputSchema)
		if err := json.Unmarshal(b, &out); err != nil || out.Type != "object" || len(out.Properties) == 0 {
			t.Errorf("%s: output schema %s, want an object with properties", tl.Name, b)
		}
		if strings.TrimSpace(tl.Description) == "" {
			t.Errorf("%s has no description", tl.Name)
		}
		if a := tl.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want read-only in a closed world", tl.Name, a)
		}
	}
}

// TestArguments checks that an argument a tool does not take is refused,
// naming it and the arguments the tool takes (the listed input schemas
// leave out additionalProperties), and so are a missing argument and a
// value of the wrong type; an integer written 5.0 and a null optional
// argument are fine.
func TestArguments(t *testing.T) {
	cs := serve(t, dbtest.SQLite(t, nil), zerolog.Nop())
	for _, c := range []struct {
		tool string
		args string
		want string
	}{
		{"run_query", `{"sql": "SELECT 1", "max_row": 5}`, `unknown argument "max_row"; this tool takes max_rows, sql`},
		{"list_tables", `{"filtre": "x"}`, `unknown argument "filtre"; this tool takes filter, limit, names_only`},
		{"describe_table", `{"table": "customers", "schema": "main"}`, `unknown argument "schema"; this tool takes table`},
		{"run_query", `{"max_rows": 5}`, `missing argument "sql"; this tool takes max_rows, sql`},
		{"run_query", `{"sql": null}`, `missing argument "sql"`},
		{"run_query", `{"sql": 5}`, `argument "sql" must be a string, not 5`},
		{"list_tables", `{"limit": "ten"}`, `argument "limit" must be an integer, not "ten"`},
		{"list_tables", `{"limit": 2.5}`, `argument "limit" must be an integer, not 2.5`},
		{"list_tables", `{"names_only": "yes"}`, `argument "names_only" must be true or false, not "yes"`},
		{"sample_values", `[1, 2]`, `the arguments must be a JSON object, not [1,2]; this tool takes column, limit, table`},
		{"list_tables", `{"limit": 2.0, "filter": null}`, ""},
	} {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			got := render(t, res)
			if c.want == "" {
				if res.IsError {
					t.Errorf("got %q, want a result", got)
				}
				return
			}
			if !res.IsError || !strings.Contains(got, c.want) {
				t.Errorf("got %q, want an error saying %q", got, c.want)
			}
		})
	}
}

// TestSchemasPortable checks every listed schema the way the MCP
// Inspector's --strict tools/list does (cmd/sqlmcp's TestInspectorCLI runs
// the Inspector itself): no bare true or false where a schema belongs, no
// array of types, and no schema that constrains nothing.
func TestSchemasPortable(t *testing.T) {
	cs := serve(t, dbtest.SQLite(t, nil), zerolog.Nop())
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		for kind, s := range map[string]any{"inputSchema": tl.InputSchema, "outputSchema": tl.OutputSchema} {
			var v any
			b, _ := json.Marshal(s)
			json.Unmarshal(b, &v)
			lintSchema(t, tl.Name+"."+kind, v)
		}
	}
}

// lintSchema walks a decoded schema and its subschemas.
func lintSchema(t *testing.T, path string, s any) {
	m, ok := s.(map[string]any)
	if !ok {
		t.Errorf("%s: %v where a schema object belongs", path, s)
		return
	}
	if _, ok := m["type"].([]any); ok {
		t.Errorf("%s: a type array %v", path, m["type"])
	}
	constrains := false
	for _, k := range []string{"type", "anyOf", "$ref", "properties", "items", "enum", "const"} {
		if _, ok := m[k]; ok {
			constrains = true
		}
	}
	if !constrains {
		t.Errorf("%s: a schema that constrains nothing: %v", path, m)
	}
	for _, k := range []string{"properties", "$defs"} {
		if sub, ok := m[k].(map[string]any); ok {
			for name, p := range sub {
				lintSchema(t, path+"."+k+"."+name, p)
			}
		}
	}
	if it, ok := m["items"]; ok {
		lintSchema(t, path+".items", it)
	}
	if branches, ok := m["anyOf"].([]any); ok {
		for i, b := range branches {
			lintSchema(t, fmt.Sprintf("%s.anyOf[%d]", path, i), b)
		}
	}
}
