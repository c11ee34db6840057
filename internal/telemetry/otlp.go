package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// exportTimeout bounds one export request.
const exportTimeout = 10 * time.Second

// exporter posts batches of spans to an OTLP/HTTP endpoint as protobuf:
// an ExportTraceServiceRequest, whose encoding is TracesData's. It is
// sqlmcp's own rather than the OpenTelemetry exporter, which links gRPC
// and its gateway (about 3 MB) for a binary that never speaks gRPC. A
// batch the collector does not take is dropped and reported, not retried:
// spans are for looking, not for the record (the audit log is that).
type exporter struct {
	url     string
	headers map[string]string
	client  *http.Client
}

func newExporter(url string, headers map[string]string) *exporter {
	return &exporter{url: url, headers: headers, client: &http.Client{Timeout: exportTimeout}}
}

// ExportSpans posts spans in one request.
func (e *exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := proto.Marshal(tracesData(spans))
	if err != nil {
		return fmt.Errorf("encoding %d spans: %w", len(spans), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("posting spans to %s: %w", e.url, err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("posting %d spans: %w", len(spans), err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("posting %d spans to %s: the collector answered %s; they are dropped", len(spans), e.url, resp.Status)
	}
	return nil
}

// Shutdown has nothing to release: requests end with their contexts.
func (e *exporter) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// tracesData groups spans by resource and scope, as OTLP carries them.
func tracesData(spans []sdktrace.ReadOnlySpan) *tracepb.TracesData {
	td := &tracepb.TracesData{}
	type key struct {
		resource      attribute.Distinct
		scope, scopev string
	}
	resources := map[attribute.Distinct]*tracepb.ResourceSpans{}
	scopes := map[key]*tracepb.ScopeSpans{}
	for _, s := range spans {
		res := s.Resource()
		rk := res.Equivalent()
		rs := resources[rk]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: keyValues(res.Attributes())}, SchemaUrl: res.SchemaURL()}
			resources[rk] = rs
			td.ResourceSpans = append(td.ResourceSpans, rs)
		}
		is := s.InstrumentationScope()
		sk := key{rk, is.Name, is.Version}
		ss := scopes[sk]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: is.Name, Version: is.Version}, SchemaUrl: is.SchemaURL}
			scopes[sk] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanProto(s))
	}
	return td
}

// spanProto is s as OTLP writes a span. sqlmcp's spans carry no events
// or links; any there are are counted as dropped.
func spanProto(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	flags := uint32(sc.TraceFlags()) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   tracepb.Span_SpanKind(s.SpanKind()), // the same numbers, unspecified to consumer
		StartTimeUnixNano:      uint64(s.StartTime().UnixNano()),
		EndTimeUnixNano:        uint64(s.EndTime().UnixNano()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents() + len(s.Events())),
		DroppedLinksCount:      uint32(s.DroppedLinks() + len(s.Links())),
		Status:                 &tracepb.Status{Message: s.Status().Description},
	}
	if parent := s.Parent(); parent.IsValid() {
		pid := parent.SpanID()
		p.ParentSpanId = pid[:]
		if parent.IsRemote() {
			flags |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
		}
	}
	p.Flags = flags
	switch s.Status().Code {
	case codes.Error:
		p.Status.Code = tracepb.Status_STATUS_CODE_ERROR
	case codes.Ok:
		p.Status.Code = tracepb.Status_STATUS_CODE_OK
	}
	return p
}

// keyValues are attributes as OTLP writes them.
func keyValues(attrs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, &commonpb.KeyValue{Key: string(a.Key), Value: anyValue(a.Value)})
	}
	return out
}

func anyValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.STRINGSLICE:
		var vals []*commonpb.AnyValue
		for _, s := range v.AsStringSlice() {
			vals = append(vals, &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}})
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}}
	}
	// Other slices, which sqlmcp does not set: as the SDK spells them.
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.String()}}
}
