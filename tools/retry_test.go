package tools_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestAuditLogRecordsRetries: a call that had to run again on a fresh
// connection, after an administrator ended sqlmcp's backends, succeeds and
// its audit event says how many times it was retried; a plain call says
// nothing of retries.
func TestAuditLogRecordsRetries(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	var logs syncBuffer
	cs := serve(t, dbtest.Open(t, dsn, nil), zerolog.New(&logs))
	call := func() {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT count(*) FROM customers"}})
		if err != nil || res.IsError {
			t.Fatalf("run_query: %v %+v", err, res)
		}
	}
	call()
	dbtest.PostgresExec(t, dsn, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'sqlmcp' AND datname = current_database()`)
	call()
	var events []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"event":"tool_call"`) {
			events = append(events, l)
		}
	}
	if len(events) != 2 {
		t.Fatalf("got %d audit events, want 2:\n%s", len(events), logs.String())
	}
	if strings.Contains(events[0], `"retries"`) {
		t.Errorf("the first call was not retried, but its event says so: %s", events[0])
	}
	if !strings.Contains(events[1], `"retries":`) || !strings.Contains(events[1], `"verdict":"ok"`) {
		t.Errorf("the call after the kill: %s, want an ok verdict with retries", events[1])
	}
}
