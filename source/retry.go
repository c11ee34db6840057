package source

import (
	"context"
	"sync/atomic"
)

// retryCounter is the context key CountRetries stores its counter under.
type retryCounter struct{}

// CountRetries returns a context under which the door counts the tries it
// ran again after a connection died or a server cancelled the statement,
// and a function that reads the count so far: the audit log records it.
func CountRetries(ctx context.Context) (context.Context, func() int) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, retryCounter{}, n), func() int { return int(n.Load()) }
}

// countRetry adds one to the counter in ctx, if any.
func countRetry(ctx context.Context) {
	if n, ok := ctx.Value(retryCounter{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
