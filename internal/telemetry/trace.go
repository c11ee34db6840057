package telemetry

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

// The W3C trace context: a request's _meta may carry it (as MCP clients
// that trace put it there), else its HTTP headers.
var traceContext propagation.TraceContext

// trace is the receiving middleware: one server span per MCP request,
// whose context carries the tracer of the door's and the engine's steps.
// The span is named after the method; the tools rename a tools/call's
// after its tool once they know it is one (see CallEnded).
func (t *Telemetry) trace(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		// The SDK refuses unknown methods before any middleware: method is
		// one the protocol names.
		ctx, span := t.tracer.Start(remoteParent(ctx, req), method, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("mcp.method.name", method)))
		defer span.End()
		res, err := next(source.WithTracer(ctx, stepTracer{t.tracer}), method, req)
		if err != nil {
			span.SetStatus(codes.Error, "the request failed")
		}
		return res, err
	}
}

// remoteParent returns ctx holding the caller's span, from the request's
// _meta traceparent and tracestate when it holds a valid one, else from
// the HTTP request's headers, else none.
func remoteParent(ctx context.Context, req mcp.Request) context.Context {
	if meta := metaOf(req); meta != nil {
		if tp, _ := meta["traceparent"].(string); tp != "" {
			c := propagation.MapCarrier{"traceparent": tp}
			if ts, _ := meta["tracestate"].(string); ts != "" {
				c["tracestate"] = ts
			}
			if pctx := traceContext.Extract(ctx, c); trace.SpanContextFromContext(pctx).IsValid() {
				return pctx
			}
		}
	}
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		return traceContext.Extract(ctx, propagation.HeaderCarrier(extra.Header))
	}
	return ctx
}

// metaOf is the request's _meta, or nil.
func metaOf(req mcp.Request) (meta map[string]any) {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	// A typed nil Params (a request sent without params) panics in
	// GetMeta.
	defer func() {
		if recover() != nil {
			meta = nil
		}
	}()
	return p.GetMeta()
}

var _ source.Tracer = stepTracer{}

// stepTracer starts the spans of the door's statement and the engine's
// guard check.
type stepTracer struct{ tracer trace.Tracer }

func (s stepTracer) Start(ctx context.Context, step source.Step) (context.Context, source.Span) {
	kind := trace.SpanKindInternal
	if step.Name == source.StepStatement {
		kind = trace.SpanKindClient // the call to the database
	}
	ctx, span := s.tracer.Start(ctx, step.Name, trace.WithSpanKind(kind), trace.WithAttributes(
		attribute.String("db.system.name", string(step.Dialect)), attribute.Bool("sqlmcp.own", step.Own)))
	return ctx, stepSpan{span}
}

// stepSpan is one step's span. Its status says what failed, in sqlmcp's
// words, never the engine's, which may quote data.
type stepSpan struct{ span trace.Span }

func (s stepSpan) End(rows int, err error) {
	if rows >= 0 {
		s.span.SetAttributes(attribute.Int("sqlmcp.rows", rows))
	}
	switch {
	case err == nil && rows < 0:
		s.span.SetAttributes(attribute.String("sqlmcp.verdict", "accepted"))
	case err == nil:
	case errors.As(err, new(*guard.Error)):
		s.span.SetAttributes(attribute.String("sqlmcp.verdict", "refused"))
		s.span.SetStatus(codes.Error, "refused")
	case errors.As(err, new(*source.TimeoutError)):
		s.span.SetStatus(codes.Error, "timeout")
	case errors.Is(err, context.Canceled):
		s.span.SetStatus(codes.Error, "cancelled")
	default:
		s.span.SetStatus(codes.Error, "error")
	}
	s.span.End()
}
