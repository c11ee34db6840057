package tools_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/source"
)

const runaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e12) SELECT count(*) FROM c"

// TestRunawayQuery: a query that would run for hours is stopped inside
// SQLite at the timeout, and a second call answers meanwhile.
func TestRunawayQuery(t *testing.T) {
	const timeout = time.Second
	logs := &mcptest.Log{}
	cs := serve(t, dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: timeout}}), zerolog.New(logs))
	var (
		wg      sync.WaitGroup
		res     *mcp.CallToolResult
		err     error
		elapsed time.Duration
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": runaway}})
		elapsed = time.Since(start)
	}()
	// The server's own signal that the long query has its turn and runs.
	logs.Wait(t, 5*time.Second, map[string]any{"event": "tool_start", "tool": "run_query"})
	listStart := time.Now()
	list, lerr := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_tables", Arguments: map[string]any{}})
	listed := time.Since(listStart)
	wg.Wait()
	if lerr != nil || list.IsError {
		t.Fatalf("list_tables during a long query: %v %+v", lerr, list)
	}
	if listed >= timeout-100*time.Millisecond {
		t.Errorf("list_tables waited %s for the long query", listed)
	}
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "ran longer than the 1s timeout and was stopped inside the database") {
		t.Errorf("got %q, want a timeout error", text)
	}
	if elapsed > timeout+100*time.Millisecond {
		t.Errorf("the runaway query answered after %s; want at most timeout + 100ms", elapsed)
	}
}

// TestClientCancel: a client that gives up cancels the query in SQLite.
func TestClientCancel(t *testing.T) {
	var logs syncBuffer
	cs := connectLogged(t, &logs)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": runaway}})
	if err == nil {
		t.Fatal("the call returned, want the client's deadline")
	}
	// The server logs the call's end when SQLite has stopped; the default
	// 15s timeout would be far later.
	logs.Wait(t, 5*time.Second, map[string]any{"event": "tool_call", "verdict": "cancelled"})
}

// TestAuditLog: one event per call, naming the SQL and the verdict, never
// the rows.
func TestAuditLog(t *testing.T) {
	var logs syncBuffer
	cs := connectLogged(t, &logs)
	for _, sql := range []string{"SELECT name FROM customers", "DELETE FROM customers"} {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": sql}}); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	var calls []string
	for _, l := range lines {
		if strings.Contains(l, `"event":"tool_call"`) {
			calls = append(calls, l)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("got %d audit events, want 2:\n%s", len(calls), logs.String())
	}
	for _, want := range []string{`"tool":"run_query"`, `"sql":"SELECT name FROM customers"`, `"verdict":"ok"`, `"rows":4`, `"truncated":false`, `"duration_ms":`} {
		if !strings.Contains(calls[0], want) {
			t.Errorf("audit event %s lacks %s", calls[0], want)
		}
	}
	if !strings.Contains(calls[1], `"verdict":"refused"`) {
		t.Errorf("audit event %s lacks the refusal", calls[1])
	}
	if strings.Contains(logs.String(), "Ada Lovelace") {
		t.Error("the log holds row data")
	}
}
