package tools_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/tools"
)

// recorder is an Observer that keeps what it hears.
type recorder struct {
	mu      sync.Mutex
	started []string
	ended   []tools.Call
}

func (r *recorder) CallStarted(_ context.Context, tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, tool)
}

func (r *recorder) CallEnded(_ context.Context, c tools.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, c)
}

func TestObserver(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	cs := mcptest.Connect(t, tools.NewServer(db, cat, &tools.Options{Name: "shop", Observer: rec}))
	calls := []struct {
		tool string
		args map[string]any
		want tools.Call // Bytes > 0 always; Duration ignored
	}{
		{"run_query", map[string]any{"sql": "SELECT 1 UNION ALL SELECT 2"}, tools.Call{Tool: "run_query", Database: "shop", Verdict: "ok", Rows: 2}},
		{"run_query", map[string]any{"sql": "DELETE FROM customers"}, tools.Call{Tool: "run_query", Database: "shop", Verdict: "refused"}},
		{"run_query", map[string]any{"sql": "SELECT 1", "database": "no such"}, tools.Call{Tool: "run_query", Verdict: "error"}},
		{"describe_table", map[string]any{"table": "customers"}, tools.Call{Tool: "describe_table", Database: "shop", Verdict: "ok", Rows: -1}},
	}
	for _, c := range calls {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.started) != len(calls) || len(rec.ended) != len(calls) {
		t.Fatalf("%d calls started and %d ended, want %d each", len(rec.started), len(rec.ended), len(calls))
	}
	for i, c := range calls {
		got := rec.ended[i]
		if rec.started[i] != c.tool {
			t.Errorf("call %d started as %q, want %q", i, rec.started[i], c.tool)
		}
		if !slices.Contains(tools.Verdicts, got.Verdict) {
			t.Errorf("call %d: verdict %q is not one of tools.Verdicts", i, got.Verdict)
		}
		if c.want.Rows < 0 { // some rows, however many
			if got.Rows <= 0 {
				t.Errorf("call %d: %d rows, want some", i, got.Rows)
			}
			c.want.Rows = got.Rows
		}
		if got.Bytes <= 0 || got.Duration <= 0 {
			t.Errorf("call %d: %d bytes in %s, want both more than 0", i, got.Bytes, got.Duration)
		}
		got.Bytes, got.Duration = 0, 0
		if got != c.want {
			t.Errorf("call %d: %+v, want %+v", i, got, c.want)
		}
	}
}
