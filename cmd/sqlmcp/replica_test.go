package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestHotStandby: sqlmcp serves a streaming replica of a throwaway
// primary: every tool answers, and a long query the standby cancels for a
// conflict with recovery (the primary deleted and vacuumed rows the
// query's snapshot could see; max_standby_streaming_delay is 0 and
// hot_standby_feedback off) runs again and answers from the new snapshot.
func TestHotStandby(t *testing.T) {
	primary := dbtest.NewCluster(t)
	dbtest.PostgresExec(t, primary.LoadFixture(t), `CREATE TABLE churn AS SELECT g AS id, repeat('x', 100) AS pad FROM generate_series(1, 20000) AS g;
		ALTER TABLE churn SET (autovacuum_enabled = off)`)
	replica := primary.NewReplica(t, "max_standby_streaming_delay = 0", "hot_standby_feedback = off")
	admin := dbtest.PostgresConn(t, replica.DSN)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		if admin.QueryRow(t.Context(), "SELECT count(*) FROM churn").Scan(&n) == nil && n == 20000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not catch up:\n%s", replica.Log())
		}
	}

	var stderr bytes.Buffer
	cs := startStdio(t, &stderr, "serve", "--db", replica.DSN, "--log-level", "warn")
	for _, c := range everyTool {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError {
			t.Errorf("%s on the replica: %s", c.tool, text)
		}
	}
	cs.Close()

	db := dbtest.Open(t, replica.DSN, &source.Options{Limits: sqlmcp.Limits{Timeout: 20 * time.Second}})
	ctx, retries := source.CountRetries(t.Context())
	type answer struct {
		res *source.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := db.Query(ctx, "SELECT count(*) FROM churn AS a, generate_series(1, 400) AS g WHERE a.pad <> g::text", 0)
		done <- answer{res, err}
	}()
	time.Sleep(300 * time.Millisecond) // the query holds its snapshot
	wctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	w := dbtest.PostgresConn(t, primary.DSN)
	for _, sql := range []string{"DELETE FROM churn WHERE id % 2 = 0", "VACUUM churn"} {
		if _, err := w.Exec(wctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	a := <-done
	if a.err != nil {
		t.Fatalf("the long query on the standby: %v", a.err)
	}
	if !strings.Contains(replica.Log(), "conflict with recovery") || retries() == 0 {
		t.Fatalf("no conflict was retried (retries %d); replica log:\n%s", retries(), replica.Log())
	}
	if got := a.res.Rows[0][0]; got != int64(10000*400) {
		t.Errorf("the retried query counted %v, want the rows after the vacuum (%d)", got, 10000*400)
	}
}
