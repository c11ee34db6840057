// Package telemetry is sqlmcp's traces and metrics: a span for each MCP
// request, with the door's statement and the engine's guard check as its
// children, exported over OTLP/HTTP; and tool-call counts, latencies,
// rows, bytes and the databases' pools in Prometheus's text format, for
// internal/serve to answer /metrics with.
//
// It sits on top, beside cmd/sqlmcp, which builds it and hands it to the
// tools (as their Observer) and to the transports. Neither traces nor
// metrics ever carry SQL text, argument values or who is calling; metric
// labels take values from fixed sets only (tool names, configured
// database names, verdicts).
package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/sqlmcp/sqlmcp/sources"
	"github.com/sqlmcp/sqlmcp/tools"
)

// Options configure New. The zero value, and nil, mean neither traces nor
// metrics.
type Options struct {
	// Metrics counts tool calls for Handler.
	Metrics bool
	// Sources are the databases whose pools and leftover statements the
	// metrics report; nil for none.
	Sources *sources.Set
	// TracesURL is the OTLP/HTTP endpoint spans are posted to, such as
	// http://localhost:4318/v1/traces. Empty means no traces: no exporter,
	// no goroutine, no span.
	TracesURL string
	// Headers are sent with every export request: a collector's API key
	// (OTEL_EXPORTER_OTLP_HEADERS).
	Headers map[string]string
	// Version is the service.version the spans' resource carries.
	Version string
	// Logger receives the exporter's complaints. Default: no logs.
	Logger zerolog.Logger
}

// Telemetry is what New set up. A nil *Telemetry is valid and does
// nothing. It is safe for concurrent use.
type Telemetry struct {
	metrics  *metrics
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
}

// New sets up what opts ask for. It connects nowhere: spans are sent in
// batches from then on, as OTLP/HTTP protobuf, and a collector that is
// down costs dropped spans, logged, never a failed call. A TracesURL that
// is not an http or https URL is an error.
func New(opts *Options) (*Telemetry, error) {
	if opts == nil {
		opts = &Options{}
	}
	t := &Telemetry{}
	if opts.Metrics {
		t.metrics = &metrics{set: opts.Sources, version: opts.Version}
	}
	if opts.TracesURL == "" {
		return t, nil
	}
	if err := CheckURL(opts.TracesURL); err != nil {
		return nil, err
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	log := opts.Logger
	// The SDK reports export failures to a process-wide handler only.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn().Str("event", "otlp_error").Str("error", err.Error()).Send()
	}))
	t.provider = sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(newExporter(opts.TracesURL, opts.Headers)),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", "sqlmcp"), attribute.String("service.version", version))),
	)
	t.tracer = t.provider.Tracer("github.com/sqlmcp/sqlmcp")
	return t, nil
}

// CheckURL says what is wrong with an OTLP/HTTP endpoint URL, or nil.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the OTLP endpoint %q is not an http:// or https:// URL like http://localhost:4318", s)
	}
	return nil
}

// Tracing reports whether spans are exported.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracer != nil }

// Observer is the tools' Observer: the metrics, and the attributes of the
// call's span. It is nil when there are neither, so the tools pay nothing.
func (t *Telemetry) Observer() tools.Observer {
	if t == nil || t.metrics == nil && t.tracer == nil {
		return nil
	}
	return t
}

// Handler answers /metrics; nil without metrics.
func (t *Telemetry) Handler() http.Handler {
	if t == nil || t.metrics == nil {
		return nil
	}
	return t.metrics
}

// Middleware is the MCP servers' receiving middleware that traces each
// request; nil without traces.
func (t *Telemetry) Middleware() mcp.Middleware {
	if !t.Tracing() {
		return nil
	}
	return t.trace
}

// CallStarted counts a call as active.
func (t *Telemetry) CallStarted(ctx context.Context, tool string) {
	if t.metrics != nil {
		t.metrics.started()
	}
}

// CallEnded counts the call and tells its span what became of it.
func (t *Telemetry) CallEnded(ctx context.Context, c tools.Call) {
	if t.metrics != nil {
		t.metrics.ended(c)
	}
	if t.tracer == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetName("tools/call " + c.Tool)
	span.SetAttributes(attribute.String("sqlmcp.tool", c.Tool), attribute.String("sqlmcp.database", c.Database),
		attribute.String("sqlmcp.verdict", c.Verdict), attribute.Int("sqlmcp.rows", c.Rows), attribute.Int("sqlmcp.bytes", c.Bytes))
	if c.Verdict != "ok" {
		span.SetStatus(codes.Error, c.Verdict)
	}
}

// shutdownWait bounds the last export at shutdown.
const shutdownWait = 5 * time.Second

// Shutdown sends the spans not sent yet, within a few seconds, and stops
// the exporter.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil || t.provider == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownWait)
	defer cancel()
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("sending the last spans: %w", err)
	}
	return nil
}
