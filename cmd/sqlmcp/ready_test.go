package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/sources"
)

// TestReadyzCountsLeftRunning: a statement PostgreSQL does not stop when
// the caller gives up is said to be maybe still running, and /readyz
// reports it while it runs, and is not ready when such statements hold
// every turn. The statement is path_inter on two long paths, which
// PostgreSQL does not interrupt (about 9 s on the test server; tools'
// TestUninterruptibleQuery has the timeout's route). The paths are made
// beforehand, so the statement is in path_inter from its first moment
// and the cancel finds it there however slowly the machine runs.
func TestReadyzCountsLeftRunning(t *testing.T) {
	const n = 25000
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, fmt.Sprintf(`CREATE TABLE paths AS SELECT
	(SELECT ('[' || string_agg(format('(%%s,0)', i), ',') || ',(%[1]d,10)]')::path FROM generate_series(1, %[1]d) AS i) AS a,
	(SELECT ('[' || string_agg(format('(%%s,5)', i), ',') || ']')::path FROM generate_series(1, %[1]d - 1) AS i) AS b`, n))
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: time.Minute}})
	// Cleanups run last first: this one, before the database is dropped,
	// waits for the backend to end (pg_terminate_backend cannot stop it).
	t.Cleanup(func() {
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if n, _ := db.LeftRunning(); n == 0 {
				return
			}
		}
	})
	// A first call connects and reads the catalog, so the one below only
	// runs its statement.
	if _, err := db.Query(t.Context(), "SELECT count(*) FROM paths", 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := db.Query(ctx, "SELECT a ?# b FROM paths", 0)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "query cancelled, but the database did not stop the query; it may still be running") {
		t.Fatalf("got %v, want a cancel the database did not obey", err)
	}
	if _, err := sources.Readiness(t.Context(), db, 1); err == nil || !strings.Contains(err.Error(), "every turn is held by 1 queries the database did not stop") {
		t.Errorf("with one turn: got %v, want not ready, naming the statement left running", err)
	}
	if note, err := sources.Readiness(t.Context(), db, 2); err != nil || note != "1 queries the database did not stop are still running" {
		t.Errorf("with two turns: got %q, %v; want ready, counting the statement left running", note, err)
	}
}
