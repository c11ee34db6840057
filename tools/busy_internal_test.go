package tools

import (
	"errors"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestBusy: with every turn taken, a call waits up to the query timeout,
// then gets a busy error it can act on; a freed turn is taken at once.
func TestBusy(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: 200 * time.Millisecond}})
	s := &server{db: db, turns: newTurns(db, 1)}
	hold, err := s.acquire(t.Context(), "") // a long call holds the only turn
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.acquire(t.Context(), "")
	var busy *BusyError
	if !errors.As(err, &busy) || verdict(err) != "busy" {
		t.Fatalf("got %v, want a busy error", err)
	}
	if want := "busy: 1 queries are running and this call waited 200ms for a turn; retry later"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	time.AfterFunc(50*time.Millisecond, hold)
	release, err := s.acquire(t.Context(), "")
	if err != nil {
		t.Fatalf("a turn freed while waiting: %v", err)
	}
	release()
	if calls, left := s.turns.running(); calls != 0 || left != 0 {
		t.Errorf("%d turns still taken, %d left running; want none", calls, left)
	}
}

// TestTurnsFair: a turn given back goes to a caller waiting with fewer
// turns than the one that holds them, ahead of that one's own waiting
// calls, whichever began to wait first; the turn's holder still gets it
// when no one else waits.
func TestTurnsFair(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: 5 * time.Second}})
	s := &server{db: db, turns: newTurns(db, 2)}
	waiting := func(caller string) func() bool {
		return func() bool { s.turns.mu.Lock(); defer s.turns.mu.Unlock(); return s.turns.waiting[caller] == 1 }
	}
	// Every round could go either way by the scheduler alone.
	for round := range 10 {
		var held []func()
		for range 2 {
			release, err := s.acquire(t.Context(), "burst")
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, release)
		}
		got := make(chan string, 2)
		takeFor := func(caller string) {
			release, err := s.acquire(t.Context(), caller)
			if err != nil {
				t.Error(err)
				return
			}
			got <- caller
			time.Sleep(10 * time.Millisecond)
			release()
		}
		go takeFor("burst") // waits first
		waitFor(t, waiting("burst"))
		go takeFor("other")
		waitFor(t, waiting("other"))
		held[0]()
		if first := <-got; first != "other" {
			t.Fatalf("round %d: the freed turn went to %q, want the caller holding none", round, first)
		}
		held[1]()
		if second := <-got; second != "burst" {
			t.Fatalf("round %d: then %q, want the burst's waiting call", round, second)
		}
		waitFor(t, func() bool { calls, _ := s.turns.running(); return calls == 0 })
	}
	s.turns.mu.Lock()
	defer s.turns.mu.Unlock()
	if len(s.turns.held)+len(s.turns.waiting) != 0 {
		t.Errorf("held %v, waiting %v; want both empty", s.turns.held, s.turns.waiting)
	}
}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

type fakeSession string

func (s fakeSession) ID() string { return string(s) }

// TestCallerOf: turns are shared among the identities tokens prove, else
// among MCP sessions; stdio's one caller is "".
func TestCallerOf(t *testing.T) {
	alice := identity.With(t.Context(), identity.Identity{Issuer: "https://idp", Subject: "alice"})
	token := identity.With(t.Context(), identity.Identity{Subject: "ci", Fingerprint: "ab12"})
	anon := identity.With(t.Context(), identity.Identity{})
	for _, tc := range []struct {
		name      string
		a, b      string
		sameAsOne bool
	}{
		{"one identity, two sessions", callerOf(alice, fakeSession("s1")), callerOf(alice, fakeSession("s2")), true},
		{"two identities", callerOf(alice, fakeSession("s1")), callerOf(token, fakeSession("s1")), false},
		{"anonymous sessions", callerOf(anon, fakeSession("s1")), callerOf(anon, fakeSession("s2")), false},
		{"no identity, one session", callerOf(t.Context(), fakeSession("s1")), callerOf(anon, fakeSession("s1")), true},
		{"stdio", callerOf(t.Context(), nil), "", true},
	} {
		if (tc.a == tc.b) != tc.sameAsOne {
			t.Errorf("%s: %q and %q", tc.name, tc.a, tc.b)
		}
	}
}
