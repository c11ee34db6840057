package source_test

import (
	"sync"
	"testing"

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
	if err := query(); err != nil {
		t.Errorf("the call after the kill: %v", err)
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
