package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/source"
)

// turns bounds the work sqlmcp has running in the database: the calls
// holding a turn, plus the statements the database did not stop when
// sqlmcp gave up on them (source.DB.LeftRunning), which still use it until
// they end. Turns are shared fairly among callers: a free turn goes to a
// caller only when no other caller waiting for one holds fewer, so one
// caller's burst of calls cannot keep another waiting behind it. It is
// safe for concurrent use.
type turns struct {
	db  *source.DB
	max int

	mu      sync.Mutex
	used    int
	held    map[string]int // turns held, by caller
	waiting map[string]int // calls waiting for a turn, by caller
	freed   chan struct{}  // closed, and replaced, when a turn is given back or a caller stops waiting
}

func newTurns(db *source.DB, max int) *turns {
	return &turns{db: db, max: max, held: map[string]int{}, waiting: map[string]int{}, freed: make(chan struct{})}
}

// take returns a turn for caller at once if one is free (fewer than max
// calls and statements left running) and no other waiting caller holds
// fewer turns. Otherwise it returns the channels to wait on.
func (t *turns) take(caller string) (ok bool, freed <-chan struct{}, changed <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	left, changed := t.db.LeftRunning()
	if t.used+left < t.max && t.fair(caller) {
		t.used++
		t.held[caller]++
		return true, nil, nil
	}
	return false, t.freed, changed
}

// fair reports whether no caller but this one waits while holding fewer
// turns than it.
func (t *turns) fair(caller string) bool {
	for w, n := range t.waiting {
		if n > 0 && w != caller && t.held[w] < t.held[caller] {
			return false
		}
	}
	return true
}

// wait counts a call of caller's waiting for a turn (by +1), or no
// longer waiting (by -1), which may let another caller's call take one.
func (t *turns) wait(caller string, by int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting[caller] += by; t.waiting[caller] <= 0 {
		delete(t.waiting, caller)
	}
	if by < 0 {
		t.wake()
	}
}

// give hands a turn of caller's back.
func (t *turns) give(caller string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.used--
	if t.held[caller]--; t.held[caller] <= 0 {
		delete(t.held, caller)
	}
	t.wake()
}

// wake wakes every waiting call to try again.
func (t *turns) wake() {
	close(t.freed)
	t.freed = make(chan struct{})
}

// running reports the calls holding a turn and the statements left
// running.
func (t *turns) running() (calls, left int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	left, _ = t.db.LeftRunning()
	return t.used, left
}

// BusyError reports a call that waited its turn for as long as a query may
// run and did not get one.
type BusyError struct {
	Running int // calls holding a turn
	// LeftRunning counts statements the database did not stop when asked,
	// which hold turns until they end.
	LeftRunning int
	Waited      time.Duration
}

func (e *BusyError) Error() string {
	if e.LeftRunning > 0 {
		return fmt.Sprintf("busy: %d queries are running, %d of them ones the database did not stop when their timeout came, "+
			"and this call waited %s for a turn; retry later", e.Running+e.LeftRunning, e.LeftRunning, e.Waited)
	}
	return fmt.Sprintf("busy: %d queries are running and this call waited %s for a turn; retry later", e.Running, e.Waited)
}

// acquire waits for a turn for caller (see callerOf) to reach the
// database, up to the query timeout, and returns the function that gives
// the turn back.
func (s *server) acquire(ctx context.Context, caller string) (release func(), err error) {
	if s.turns == nil {
		return func() {}, nil
	}
	var timer *time.Timer
	wait := s.db.Limits().Timeout
	for {
		ok, freed, changed := s.turns.take(caller)
		if ok {
			if timer != nil {
				s.turns.wait(caller, -1)
			}
			return func() { s.turns.give(caller) }, nil
		}
		if timer == nil {
			s.turns.wait(caller, 1)
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-freed:
		case <-changed:
		case <-timer.C:
			s.turns.wait(caller, -1)
			calls, left := s.turns.running()
			return nil, &BusyError{Running: calls, LeftRunning: left, Waited: wait}
		case <-ctx.Done():
			s.turns.wait(caller, -1)
			return nil, fmt.Errorf("call cancelled while waiting for a turn: %w", ctx.Err())
		}
	}
}

// callerOf names the caller turns are shared among: the identity the
// call's credentials prove, or else its MCP session (anonymous callers
// over HTTP); "" for the one caller of stdio.
func callerOf(ctx context.Context, session interface{ ID() string }) string {
	if id, ok := identity.From(ctx); ok && (id.Subject != "" || id.Fingerprint != "") {
		return "id\x00" + id.Issuer + "\x00" + id.Subject + "\x00" + id.Fingerprint
	}
	if session != nil {
		return "session\x00" + session.ID()
	}
	return ""
}
