package tools_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

// pgPathInter asks whether two open paths of n points intersect: they do
// not, and their boxes overlap, so path_inter compares every segment with
// every other, in a loop PostgreSQL does not interrupt. Measured on the
// shared test server: n = 16,000 ran 3.9 s past a 500 ms
// statement_timeout; 25,000 runs about 9 s, on one core, in a few MB.
func pgPathInter(n int) string {
	return fmt.Sprintf(`SELECT (SELECT ('[' || string_agg(format('(%%s,0)', i), ',') || ',(%[1]d,10)]')::path FROM generate_series(1, %[1]d) AS i)
	?# (SELECT ('[' || string_agg(format('(%%s,5)', i), ',') || ']')::path FROM generate_series(1, %[1]d - 1) AS i) AS meet`, n)
}

// TestUninterruptibleQuery: a statement PostgreSQL does not stop at the
// timeout gets an answer that says so, its backend keeps the only turn
// until it ends, and afterwards nothing of sqlmcp's runs on the server.
func TestUninterruptibleQuery(t *testing.T) {
	if os.Getenv(dbtest.PostgresEnv) == "" {
		t.Skip(dbtest.PostgresEnv + " is not set")
	}
	dsn := dbtest.PostgresDSN(t)
	admin := dbtest.PostgresConn(t, dsn)
	name := strings.TrimPrefix(dsn[strings.LastIndex(dsn, "/"):], "/")
	name, _, _ = strings.Cut(name, "?")
	active := func() []string {
		rows, err := admin.Query(context.Background(), `SELECT pid::text FROM pg_stat_activity
			WHERE application_name = 'sqlmcp' AND datname = $1 AND state <> 'idle'`, name)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var pids []string
		for rows.Next() {
			var pid string
			rows.Scan(&pid)
			pids = append(pids, pid)
		}
		return pids
	}
	// pg_terminate_backend does not stop it either: wait for it to end,
	// before the database is dropped.
	t.Cleanup(func() {
		for deadline := time.Now().Add(90 * time.Second); len(active()) > 0 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
		}
	})
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: time.Second}})
	logs := &syncBuffer{}
	cs := serveWith(t, db, &tools.Options{Logger: zerolog.New(logs), MaxConcurrency: 1})
	runQuery := func(sql string) (string, bool) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": sql}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	start := time.Now()
	text, isErr := runQuery(pgPathInter(25000))
	answered := time.Since(start)
	if !isErr || !strings.Contains(text, "the database did not stop the query; it may still be running") ||
		strings.Contains(text, "stopped inside the database") {
		t.Fatalf("got %q after %s, want the answer to say the database did not stop", text, answered)
	}
	if answered > 6*time.Second {
		t.Errorf("answered after %s, want within a few seconds of the 1s timeout", answered)
	}
	if !strings.Contains(logs.String(), `"verdict":"not_stopped"`) {
		t.Errorf("the audit log lacks the not_stopped verdict:\n%s", logs.String())
	}
	left, _ := db.LeftRunning()
	running := active()
	if left != 1 || len(running) != 1 {
		t.Fatalf("after the answer: %d tracked, %v running on the server; want the one backend tracked and running", left, running)
	}

	// The backend holds the only turn: a cheap call waits, then is busy.
	text, isErr = runQuery("SELECT 1")
	if !isErr || !strings.Contains(text, "busy: 1 queries are running, 1 of them ones the database did not stop") {
		t.Errorf("while the backend runs: got %q, want busy", text)
	}

	// Once the backend ends, sqlmcp sees it and the turn is free again.
	if !dbtest.NoneLeftRunning(db, 90*time.Second) {
		t.Fatalf("still tracked after 90s; running on the server: %v", active())
	}
	if got := active(); len(got) != 0 {
		t.Errorf("no longer tracked, but the server shows %v running", got)
	}
	if text, isErr = runQuery("SELECT 1 AS one"); isErr {
		t.Errorf("after the backend ended: %q", text)
	}
	t.Logf("answered after %s; the backend ran %s in all", answered.Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond))
}
