package duckdb

import (
	"context"
	"sync"
	"time"

	"github.com/sqlmcp/sqlmcp/source"
)

// duckGiveUp is how long after a call's context ends (its timeout, or the
// caller gone) sqlmcp waits for DuckDB to stop the statement before it
// answers without it. DuckDB's interrupt is checked between chunks of
// work, so a single long function call (levenshtein of two long texts, a
// big list built in one call) runs on past it: ten times the 2 s timeout
// was measured.
const duckGiveUp = 2 * time.Second

// LeftRunning reports the statements DuckDB still runs after sqlmcp gave
// up on them (source.LeftRunner).
func (b *backend) LeftRunning() (int, <-chan struct{}) { return b.left.Count() }

// leftRunning is the error of a call given up on: errors.Is(err,
// source.ErrLeftRunning) holds.
type leftRunning struct{}

func (leftRunning) Error() string        { return "DuckDB did not stop the statement when asked" }
func (leftRunning) Is(target error) bool { return target == source.ErrLeftRunning }

// runOrGiveUp is c.run, given up on duckGiveUp after ctx ends when DuckDB
// has not stopped by then: the statement goes on, on c's connection,
// which is closed when it ends, and nothing of it reaches sink once
// given up on.
func (c *conn) runOrGiveUp(ctx context.Context, text string, args []any, sink source.Sink) error {
	var mu sync.Mutex
	gaveUp := false
	guarded := source.Sink{Row: func(r []any) bool {
		mu.Lock()
		defer mu.Unlock()
		return !gaveUp && sink.Row(r)
	}}
	if sink.Columns != nil {
		guarded.Columns = func(cols []source.Column) {
			mu.Lock()
			defer mu.Unlock()
			if !gaveUp {
				sink.Columns(cols)
			}
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.run(ctx, text, args, guarded) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(duckGiveUp)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	mu.Lock()
	gaveUp = true
	mu.Unlock()
	c.gaveUp = true
	id := c.b.gaveUp.Add(1)
	c.b.left.Add(id)
	go func() {
		<-done
		c.close()
		c.b.left.Done(id)
	}()
	return leftRunning{}
}
