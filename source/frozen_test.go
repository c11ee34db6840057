package source_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestFrozenServerIsNotCalledStopped: a server that stops answering (its
// processes frozen, its sockets open) fails each call within about its
// timeout, and never with the claim that the database stopped the
// statement, which only the database can make: the call says the
// database did not answer, or that the statement may still be running.
// Once the server answers again, so do the calls.
func TestFrozenServerIsNotCalledStopped(t *testing.T) {
	cluster := dbtest.NewCluster(t)
	const timeout = time.Second
	db := dbtest.Open(t, cluster.LoadFixture(t), &source.Options{MaxConns: 2, Limits: sqlmcp.Limits{Timeout: timeout}})
	if _, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0); err != nil {
		t.Fatal(err)
	}
	cluster.Freeze(t)
	for i := range 3 {
		start := time.Now()
		_, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
		took := time.Since(start)
		var te *source.TimeoutError
		var ue *source.UnavailableError
		switch {
		case errors.As(err, &te) && !te.Running:
			t.Errorf("call %d: %v: the frozen server cannot have stopped anything", i, err)
		case err == nil || !errors.As(err, &te) && !errors.As(err, &ue):
			t.Errorf("call %d: got %v, want the database unavailable or the statement maybe still running", i, err)
		}
		if took > 4*timeout+10*time.Second {
			t.Errorf("call %d took %s", i, took)
		}
		t.Logf("call %d after %s: %v", i, took.Round(time.Millisecond), err)
	}
	cluster.Thaw(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the server answers again: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
