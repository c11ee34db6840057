package source

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// lossyConn is an engine connection whose statement starts a while after
// Run is called and ignores a Cancel that came before it started, as
// SQLite's, DuckDB's and MySQL's interrupts do; once started, a Cancel
// stops it.
type lossyConn struct {
	started atomic.Bool
	stop    chan struct{}
	cancels atomic.Int32
}

func (c *lossyConn) Run(ctx context.Context, _ Statement, _ Sink) error {
	time.Sleep(50 * time.Millisecond) // compiling
	c.started.Store(true)
	select {
	case <-c.stop:
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return nil // ran to its end: the cancel was lost
	}
}

func (c *lossyConn) Cancel() {
	c.cancels.Add(1)
	if c.started.Load() {
		select {
		case <-c.stop:
		default:
			close(c.stop)
		}
	}
}

func (c *lossyConn) Release(err error) error { return err }

// lossyBackend hands out one lossyConn.
type lossyBackend struct {
	Backend
	conn *lossyConn
}

func (b *lossyBackend) Acquire(context.Context) (Conn, error) { return b.conn, nil }

// TestCancelNotLost: a call cancelled before its statement started still
// stops, soon after it starts, and no Cancel reaches the connection once
// Run has returned.
func TestCancelNotLost(t *testing.T) {
	conn := &lossyConn{stop: make(chan struct{})}
	db := &DB{b: &lossyBackend{conn: conn}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // before the statement starts
	start := time.Now()
	if _, err := db.once(ctx, Statement{SQL: "SELECT 1"}, Sink{}); err == nil {
		t.Error("the cancelled statement ran to its end")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the cancelled statement stopped after %s", d)
	}
	n := conn.cancels.Load()
	time.Sleep(3 * recancelEvery)
	if m := conn.cancels.Load(); m != n {
		t.Errorf("%d more Cancels after Run returned", m-n)
	}
}
