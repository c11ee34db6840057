// Package logline lets a transport gather the log lines of one request
// and write them together: the tools' tool_call event and the
// transport's own access event go out in one write, not one each.
//
// A request's context carries its Held; code that logs for the request
// writes through Held.Logger, and the transport calls Flush when the
// request is done. Without a Held on the context, lines go out as
// always, one write each.
package logline

import (
	"context"
	"io"
	"sync"

	"github.com/rs/zerolog"
)

// Held gathers lines until Flush, then writes each as it comes: a line
// logged late, by work that outlived its request, is not lost. It is
// safe for concurrent use.
type Held struct {
	out   io.Writer
	mu    sync.Mutex
	lines []byte
	done  bool
}

// New returns a Held that writes to out.
func New(out io.Writer) *Held { return &Held{out: out} }

// Write keeps p, one whole line as zerolog writes it, or writes it once
// h is flushed.
func (h *Held) Write(p []byte) (int, error) {
	h.mu.Lock()
	if h.done {
		h.mu.Unlock()
		return h.out.Write(p)
	}
	h.lines = append(h.lines, p...)
	h.mu.Unlock()
	return len(p), nil
}

// Flush writes what h holds in one write; every line after goes out by
// itself.
func (h *Held) Flush() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if len(h.lines) == 0 {
		return nil
	}
	_, err := h.out.Write(h.lines)
	h.lines = nil
	return err
}

type key struct{}

// With returns ctx carrying h.
func With(ctx context.Context, h *Held) context.Context {
	return context.WithValue(ctx, key{}, h)
}

// Logger is log writing into the Held that ctx carries, or log itself
// when ctx carries none: the same level, fields and hooks either way.
func Logger(ctx context.Context, log zerolog.Logger) zerolog.Logger {
	if h, ok := ctx.Value(key{}).(*Held); ok {
		return log.Output(h)
	}
	return log
}
