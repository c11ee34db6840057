package mysql

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// left tracks the server connections sqlmcp killed whose statement the
// server still ran (a function that never looks at the kill flag, such
// as ENCRYPT's crypt() over many rounds), until they leave the process
// list. It is safe for concurrent use.
type left struct {
	mu      sync.Mutex
	ids     map[uint64]bool
	changed chan struct{} // closed, and replaced, at every change
	polling bool
}

func newLeft() *left { return &left{ids: map[uint64]bool{}, changed: make(chan struct{})} }

// leftPoll is how often the server is asked whether the connections sqlmcp
// gave up on have ended.
const leftPoll = 250 * time.Millisecond

// LeftRunning reports how many statements the server still runs after
// sqlmcp killed them (source.LeftRunner), and a channel closed at the next
// change of that number.
func (b *backend) LeftRunning() (int, <-chan struct{}) {
	b.left.mu.Lock()
	defer b.left.mu.Unlock()
	return len(b.left.ids), b.left.changed
}

// track adds the server connection id and starts polling if nobody is.
func (b *backend) track(id uint64) {
	l := b.left
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids[id] {
		return
	}
	l.ids[id] = true
	l.notify()
	if !l.polling {
		l.polling = true
		go b.poll()
	}
}

// notify wakes whoever waits on a change; l.mu is held.
func (l *left) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// poll drops, every leftPoll, the tracked connections the process list no
// longer shows, until none is left or the backend closes.
func (b *backend) poll() {
	l := b.left
	t := time.NewTicker(leftPoll)
	defer t.Stop()
	for range t.C {
		l.mu.Lock()
		ids := make([]string, 0, len(l.ids))
		for id := range l.ids {
			ids = append(ids, strconv.FormatUint(id, 10))
		}
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		rows, err := b.kill.QueryContext(ctx, "SELECT ID FROM information_schema.PROCESSLIST WHERE ID IN ("+strings.Join(ids, ", ")+")")
		still := map[uint64]bool{}
		if err == nil {
			for rows.Next() {
				var id uint64
				if rows.Scan(&id) == nil {
					still[id] = true
				}
			}
			err = rows.Close()
		}
		cancel()
		l.mu.Lock()
		if err != nil && b.closed.Load() {
			// The backend closed: nothing can be followed any more.
			clear(l.ids)
		} else if err == nil {
			for id := range l.ids {
				if !still[id] {
					delete(l.ids, id)
				}
			}
		}
		l.notify()
		done := len(l.ids) == 0
		if done {
			l.polling = false
		}
		l.mu.Unlock()
		if done {
			return
		}
	}
}
