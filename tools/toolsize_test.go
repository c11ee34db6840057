package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/tools"
)

// maxToolList is the most the tools/list result may weigh: every
// conversation pays it in tokens. 6 KiB, and room for the tables a role
// may not read and for naming the database.
const maxToolList = 6<<10 + 512

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

// TestUnknownArgument checks that an argument a tool does not take is
// refused, naming it and the arguments the tool takes, now that the listed
// input schemas leave out additionalProperties.
func TestUnknownArgument(t *testing.T) {
	cs := serve(t, dbtest.SQLite(t, nil), zerolog.Nop())
	for _, c := range []struct {
		tool string
		args string
		want string
	}{
		{"run_query", `{"sql": "SELECT 1", "max_row": 5}`, `unknown argument "max_row"; this tool takes database, max_rows, sql`},
		{"list_tables", `{"filtre": "x"}`, `unknown argument "filtre"; this tool takes database, filter, limit, names_only`},
		{"describe_table", `{"table": "customers", "schema": "main"}`, `unknown argument "schema"; this tool takes database, table`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			if got := render(t, res); !res.IsError || !strings.Contains(got, c.want) {
				t.Errorf("got %q, want an error saying %q", got, c.want)
			}
		})
	}
}
