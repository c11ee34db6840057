package tools

import (
	"errors"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestBusy: with every turn taken, a call waits up to the query timeout,
// then gets a busy error it can act on; a freed turn is taken at once.
func TestBusy(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: 200 * time.Millisecond}})
	s := &server{db: db, turns: newTurns(db, 1)}
	hold, err := s.acquire(t.Context()) // a long call holds the only turn
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.acquire(t.Context())
	var busy *BusyError
	if !errors.As(err, &busy) || verdict(err) != "busy" {
		t.Fatalf("got %v, want a busy error", err)
	}
	if want := "busy: 1 queries are running and this call waited 200ms for a turn; retry later"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	time.AfterFunc(50*time.Millisecond, hold)
	release, err := s.acquire(t.Context())
	if err != nil {
		t.Fatalf("a turn freed while waiting: %v", err)
	}
	release()
	if calls, left := s.turns.running(); calls != 0 || left != 0 {
		t.Errorf("%d turns still taken, %d left running; want none", calls, left)
	}
}
