package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/sqlite"
)

// TestCancelBeforeStep: a call cancelled after it took its connection but
// before its statement started stepping still stops (SQLite's interrupt
// alone is cleared as the statement starts), and the connection's next
// call runs as usual.
func TestCancelBeforeStep(t *testing.T) {
	ctx := context.Background()
	const timeout = 20 * time.Second
	b, err := sqlite.Engine{}.Open(ctx, dbtest.SQLiteFile(t), source.Config{Limits: sqlmcp.Limits{Timeout: timeout}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.Cancel()
	start := time.Now()
	// A backstop, so that a lost cancel fails the test instead of hanging
	// it: a second Cancel, while the statement steps, stops it.
	const backstop = 5 * time.Second
	stop := time.AfterFunc(backstop, c.Cancel)
	defer stop.Stop()
	runaway := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1e12) SELECT count(*) FROM c"
	err = c.Run(ctx, source.Statement{SQL: runaway}, source.Sink{Row: func([]any) bool { return true }})
	c.Release(err)
	if err == nil {
		t.Fatal("the runaway ran to its end")
	}
	if d := time.Since(start); d >= backstop {
		t.Errorf("the cancelled statement ran %s, until the backstop stopped it", d)
	}
	c, err = b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	err = c.Run(ctx, source.Statement{SQL: "SELECT 42 AS n"}, source.Sink{Row: func(r []any) bool { got = r; return true }})
	c.Release(err)
	if err != nil || len(got) != 1 {
		t.Errorf("the next call on the connection: %v, %v", got, err)
	}
}
