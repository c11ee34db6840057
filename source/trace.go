package source

import (
	"context"

	"github.com/sqlmcp/sqlmcp"
)

// Tracer starts the spans of a call's steps: the door's statement and,
// inside each engine's Conn.Run, the guard's check. A call's context
// carries one (WithTracer) when its traces are exported; without one a
// step costs a context lookup and nothing else. It must be safe for
// concurrent use.
type Tracer interface {
	// Start starts step as a child of the span ctx holds, and returns ctx
	// holding the new one.
	Start(ctx context.Context, step Step) (context.Context, Span)
}

// Step is one traced step of a call: what a span shows of it. It never
// holds SQL text or argument values.
type Step struct {
	// Name is the span's name: StepStatement or StepGuard.
	Name string
	// Dialect is the engine's dialect.
	Dialect sqlmcp.Dialect
	// Own marks sqlmcp's own catalog reads, as opposed to the model's
	// statements.
	Own bool
}

// The names of the steps the door and the engines trace.
const (
	StepStatement = "sqlmcp.statement" // DB.run: the statement, retries included
	StepGuard     = "sqlmcp.guard"     // an engine's guard check (SQLite's: the guarded compile)
)

// Span is a step being traced.
type Span interface {
	// End ends the span with the step's outcome: the rows handed on (-1
	// when the step hands on none) and its error, nil on success.
	End(rows int, err error)
}

type tracerKey struct{}

// WithTracer returns ctx carrying t, whose spans the steps of calls
// made with it start.
func WithTracer(ctx context.Context, t Tracer) context.Context {
	return context.WithValue(ctx, tracerKey{}, t)
}

// StartStep starts step under the tracer ctx carries, for an engine's
// Conn.Run to trace its guard check; with no tracer it returns ctx and a
// span whose End does nothing.
func StartStep(ctx context.Context, step Step) (context.Context, Span) {
	t, _ := ctx.Value(tracerKey{}).(Tracer)
	if t == nil {
		return ctx, noSpan{}
	}
	return t.Start(ctx, step)
}

// noSpan is the span of an untraced step.
type noSpan struct{}

func (noSpan) End(int, error) {}
