package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sqlmcp/sqlmcp/source"
)

// turns bounds the work sqlmcp has running in the database: the calls
// holding a turn, plus the statements the database did not stop when
// sqlmcp gave up on them (source.DB.LeftRunning), which still use it until
// they end. It is safe for concurrent use.
type turns struct {
	db  *source.DB
	max int

	mu    sync.Mutex
	used  int
	freed chan struct{} // closed, and replaced, when a turn is given back
}

func newTurns(db *source.DB, max int) *turns {
	return &turns{db: db, max: max, freed: make(chan struct{})}
}

// take returns a turn at once if one is free: fewer than max calls and
// statements left running. Otherwise it returns the channels to wait on.
func (t *turns) take() (ok bool, freed <-chan struct{}, changed <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	left, changed := t.db.LeftRunning()
	if t.used+left < t.max {
		t.used++
		return true, nil, nil
	}
	return false, t.freed, changed
}

// give hands a turn back.
func (t *turns) give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.used--
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

// acquire waits for a turn to reach the database, up to the query
// timeout, and returns the function that gives the turn back.
func (s *server) acquire(ctx context.Context) (release func(), err error) {
	if s.turns == nil {
		return func() {}, nil
	}
	var timer *time.Timer
	wait := s.db.Limits().Timeout
	for {
		ok, freed, changed := s.turns.take()
		if ok {
			return s.turns.give, nil
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-freed:
		case <-changed:
		case <-timer.C:
			calls, left := s.turns.running()
			return nil, &BusyError{Running: calls, LeftRunning: left, Waited: wait}
		case <-ctx.Done():
			return nil, fmt.Errorf("call cancelled while waiting for a turn: %w", ctx.Err())
		}
	}
}
