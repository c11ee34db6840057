package postgres_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestPostgresSurvivesKilledConnections: after an administrator ends
// sqlmcp's backends, the next calls, one alone and eight at once, answer as
// if nothing happened.
func TestPostgresSurvivesKilledConnections(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 8})
	admin := dbtest.PostgresConn(t, dsn)
	kill := func() {
		pgAdminQuery(t, admin, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = 'sqlmcp' AND datname = current_database()`)
	}
	query := func() error {
		_, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
		return err
	}
	if err := query(); err != nil {
		t.Fatal(err)
	}
	kill()
	ctx, retries := source.CountRetries(t.Context())
	if _, err := db.Query(ctx, "SELECT count(*) FROM customers", 0); err != nil {
		t.Errorf("the call after the kill: %v", err)
	}
	if retries() == 0 {
		t.Error("the call after the kill counted no retry")
	}
	for round := range 3 {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() { errs <- query() })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		kill()
	}
}

// TestPostgresRetriesOnlyTheConnection: a statement timeout and errors of
// the statement's own (a missing table, a division by zero, a permission
// denied, a bad cast) come back as they are, tried once, never retried.
func TestPostgresRetriesOnlyTheConnection(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE TABLE sqlmcp_secret(x int)`)
	_, roleDSN := pgRole(t, dsn, `CREATE ROLE {{role}} LOGIN; GRANT USAGE ON SCHEMA public TO {{role}}`)
	admin := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: 300 * time.Millisecond}})
	reader := dbtest.Open(t, roleDSN, &source.Options{Limits: sqlmcp.Limits{Timeout: 300 * time.Millisecond}})
	for _, c := range []struct {
		db   *source.DB
		sql  string
		code string // the SQLSTATE, or "" for the timeout
	}{
		{admin, pgRunaway, ""},
		{admin, "SELECT * FROM sqlmcp_missing", "42P01"},
		{admin, "SELECT 1 / (SELECT count(*) FROM sqlmcp_secret)", "22012"},
		{admin, "SELECT 'x'::int", "22P02"},
		{reader, "SELECT * FROM sqlmcp_secret", "42501"},
	} {
		ctx, retries := source.CountRetries(t.Context())
		_, err := c.db.Query(ctx, c.sql, 0)
		var te *source.TimeoutError
		var ee *source.EngineError
		switch {
		case c.code == "" && !errors.As(err, &te):
			t.Errorf("%s: %v, want the timeout", c.sql, err)
		case c.code != "" && (!errors.As(err, &ee) || ee.Code != c.code):
			t.Errorf("%s: %v, want SQLSTATE %s", c.sql, err, c.code)
		}
		if n := retries(); n != 0 {
			t.Errorf("%s: retried %d times", c.sql, n)
		}
	}
}
