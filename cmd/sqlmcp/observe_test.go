package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
)

func TestTracesURL(t *testing.T) {
	for _, c := range []struct {
		name, flag string
		env        map[string]string
		want       string
	}{
		{"nothing set", "", nil, ""},
		{"flag without a path", "http://collector:4318", nil, "http://collector:4318/v1/traces"},
		{"flag with a slash", "http://collector:4318/", nil, "http://collector:4318/v1/traces"},
		{"flag with a path", "https://otlp.example.com/otlp/v1/traces", nil, "https://otlp.example.com/otlp/v1/traces"},
		{"flag over the environment", "http://a:4318", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:4318/x"}, "http://a:4318/v1/traces"},
		{"traces variable as it is", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:4318/x", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, "http://b:4318/x"},
		{"general variable with the path", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}, "http://c:4318/v1/traces"},
		{"general variable's path kept", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/otlp"}, "http://c:4318/otlp/v1/traces"},
		{"no host is left to the check", "http://", nil, "http://"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := tracesURL(c.flag, func(k string) string { return c.env[k] }); got != c.want {
				t.Errorf("tracesURL(%q) = %q, want %q", c.flag, got, c.want)
			}
		})
	}
}

// TestTelemetryFlags runs sqlmcp with --otlp-endpoint against a receiver
// counting the spans it is sent, and reads /metrics with and without the
// token, with and without --metrics-open.
func TestTelemetryFlags(t *testing.T) {
	var mu sync.Mutex
	var names []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ex coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Api-Key") != "k 1" || proto.Unmarshal(body, &ex) != nil {
			http.Error(w, "not an OTLP/HTTP export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range ex.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					names = append(names, sp.Name)
				}
			}
		}
	}))
	defer recv.Close()

	s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken, "OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL, "OTEL_EXPORTER_OTLP_HEADERS": "api-key=k%201"}, "--db", dbtest.SQLiteFile(t))
	cs := mcptest.ConnectHTTP(t, s.base+"/mcp", mcptest.HTTPClient(t, envToken, nil), "")
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT 1"}}); err != nil {
		t.Fatal(err)
	}
	get := func(base, token string) (int, string) {
		t.Helper()
		resp, err := mcptest.HTTPClient(t, token, nil).Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(s.base, envToken); code != http.StatusOK || !strings.Contains(body, `sqlmcp_tool_calls_total{tool="run_query",database=`) {
		t.Errorf("GET /metrics with the token: %d\n%s", code, body)
	}
	if code, _ := get(s.base, ""); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token: %d, want 401", code)
	}
	cs.Close()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup's wait
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop")
	}
	mu.Lock()
	got := strings.Join(names, ", ")
	mu.Unlock()
	// Shutdown sent the spans still batched.
	if !strings.Contains(got, "tools/call run_query") || !strings.Contains(got, "sqlmcp.statement") || !strings.Contains(got, "sqlmcp.guard") {
		t.Errorf("the receiver got spans %q, want tools/call run_query with its statement and guard", got)
	}

	open := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken, "SQLMCP_METRICS_OPEN": "true"}, "--db", dbtest.SQLiteFile(t))
	if code, body := get(open.base, ""); code != http.StatusOK || !strings.Contains(body, "sqlmcp_tool_calls_active 0") {
		t.Errorf("GET /metrics without the token, --metrics-open: %d\n%s", code, body)
	}
	if ev := open.log.Find(map[string]any{"event": "start", "metrics": "open", "traces": false}); len(ev) != 1 {
		t.Errorf("no start event saying metrics open and no traces:\n%s", open.log)
	}
}

func TestOTLPEndpointRefused(t *testing.T) {
	for _, endpoint := range []string{"collector:4318", "grpc://collector:4317", "http://"} {
		_, err := parseServe([]string{"--db", "x.db", "--otlp-endpoint", endpoint}, io.Discard, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), "is not an http:// or https:// URL") {
			t.Errorf("--otlp-endpoint %s: %v, want a usage error saying what to write", endpoint, err)
		}
	}
}

func TestOTLPHeaders(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x-team = data"}
	got, err := otlpHeaders(func(k string) string { return env[k] })
	if err != nil || len(got) != 2 || got["api-key"] != "a b" || got["x-team"] != "data" {
		t.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %v %v", got, err)
	}
	env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] = "only=this"
	if got, err := otlpHeaders(func(k string) string { return env[k] }); err != nil || len(got) != 1 || got["only"] != "this" {
		t.Errorf("the traces variable wins: %v %v", got, err)
	}
	env["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] = "no-equals"
	if _, err := otlpHeaders(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "is not key=value") {
		t.Errorf("a pair without =: %v", err)
	}
}
