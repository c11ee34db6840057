package telemetry

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestExporterRefused(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Api-Key") + " " + r.Header.Get("Content-Type")
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	e := newExporter(srv.URL+"/v1/traces", map[string]string{"Api-Key": "k"})
	spans := tracetest.SpanStubs{{Name: "tools/call"}}.Snapshots()
	err := e.ExportSpans(t.Context(), spans)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "dropped") {
		t.Errorf("a collector answering 503: %v, want an error saying so and that the spans are dropped", err)
	}
	if got != "k application/x-protobuf" {
		t.Errorf("the request's Api-Key and Content-Type: %q", got)
	}
	if err := e.ExportSpans(t.Context(), nil); err != nil {
		t.Errorf("no spans: %v, want nothing posted", err)
	}
}
