package source

import (
	"sync"
	"time"
)

// Left follows the statements an engine gave up on that the database may
// still run, each by an id of the engine's (a PostgreSQL backend's pid, a
// MySQL connection id), until they end: an engine's LeftRunner. With a
// still function, it asks every poll which ids still run and drops the
// rest; without one, the engine calls Done. It is safe for concurrent use.
type Left struct {
	still func(ids []uint64) (map[uint64]bool, error)
	every time.Duration

	mu      sync.Mutex
	ids     map[uint64]bool
	changed chan struct{} // closed, and replaced, at every change
	polling bool
	closed  chan struct{} // closed by Stop, to stop polling
}

// NewLeft returns a Left that asks still, every period, which of the ids
// it follows still run (an error keeps them all: better busy than
// overloaded); still nil for an engine that reports the end itself.
func NewLeft(every time.Duration, still func(ids []uint64) (map[uint64]bool, error)) *Left {
	return &Left{still: still, every: every, ids: map[uint64]bool{}, changed: make(chan struct{}), closed: make(chan struct{})}
}

// Count reports how many statements are followed, and a channel closed at
// the next change of that number (see LeftRunner).
func (l *Left) Count() (int, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ids), l.changed
}

// Add follows id, and starts polling if nobody is.
func (l *Left) Add(id uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids[id] {
		return
	}
	l.ids[id] = true
	l.notify()
	if l.still != nil && !l.polling {
		l.polling = true
		go l.poll()
	}
}

// Done stops following id: its statement ended.
func (l *Left) Done(id uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids[id] {
		delete(l.ids, id)
		l.notify()
	}
}

// Stop ends polling; the statements, if any, run on in the database.
func (l *Left) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
}

// notify wakes whoever waits on a change; l.mu is held.
func (l *Left) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// poll asks still which followed ids still run, every period, until none
// does or Stop.
func (l *Left) poll() {
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		select {
		case <-l.closed:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		ids := make([]uint64, 0, len(l.ids))
		for id := range l.ids {
			ids = append(ids, id)
		}
		l.mu.Unlock()
		running, err := l.still(ids)
		if err != nil {
			continue
		}
		l.mu.Lock()
		gone := false
		for _, id := range ids {
			if !running[id] {
				delete(l.ids, id)
				gone = true
			}
		}
		if gone {
			l.notify()
		}
		if len(l.ids) == 0 {
			l.polling = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
	}
}
