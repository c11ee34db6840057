package telemetry_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/internal/telemetry"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/sources"
	"github.com/sqlmcp/sqlmcp/tools"
)

// receiver is an OTLP/HTTP collector: it keeps the spans of every export
// request posted to /v1/traces, as protobuf, the way a collector reads
// them.
type receiver struct {
	url string

	mu    sync.Mutex
	spans []*tracepb.Span
	bad   []string // what was wrong with a request
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		var ex coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &ex)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		switch {
		case req.Method != http.MethodPost || req.URL.Path != "/v1/traces":
			r.bad = append(r.bad, req.Method+" "+req.URL.Path)
			http.NotFound(w, req)
			return
		case req.Header.Get("Content-Type") != "application/x-protobuf":
			r.bad = append(r.bad, "Content-Type "+req.Header.Get("Content-Type"))
		case err != nil:
			r.bad = append(r.bad, err.Error())
		}
		for _, rs := range ex.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/v1/traces"
	return r
}

// got returns the spans received, failing on a malformed request.
func (r *receiver) got(t *testing.T) []*tracepb.Span {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		t.Fatalf("the receiver got malformed exports: %v", r.bad)
	}
	return r.spans
}

// server is sqlmcp over HTTP on the SQLite fixture, its telemetry on.
type server struct {
	base string
	tel  *telemetry.Telemetry
}

// start serves the fixture as database "shop" over HTTP with opts, with
// metrics and, when tracesURL is set, traces.
func start(t testing.TB, tracesURL string, opts serve.HTTPOptions) *server {
	t.Helper()
	return startWith(t, true, tracesURL, opts)
}

// startWith is start, metrics on or off.
func startWith(t testing.TB, metrics bool, tracesURL string, opts serve.HTTPOptions) *server {
	t.Helper()
	db := dbtest.SQLite(t, nil)
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(&telemetry.Options{Metrics: metrics, TracesURL: tracesURL, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := tools.NewServer(db, cat, &tools.Options{Name: "shop", Observer: tel.Observer()})
	if mw := tel.Middleware(); mw != nil {
		srv.AddReceivingMiddleware(mw)
	}
	log := &mcptest.Log{}
	opts.Addr, opts.Logger, opts.Metrics = "127.0.0.1:0", zerolog.New(log), tel.Handler()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.HTTP(ctx, srv, &opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("HTTP: %v", err)
		}
		tel.Shutdown(context.Background())
	})
	ev := log.Wait(t, 30*time.Second, map[string]any{"event": "start"})
	return &server{base: strings.TrimSuffix(ev["url"].(string), "/mcp"), tel: tel}
}

// withHeader adds a header to every request.
type withHeader struct {
	name, value string
	base        http.RoundTripper
}

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return h.base.RoundTrip(r)
}

// The callers' trace contexts: a trace and span ID each.
const (
	metaTrace   = "4bf92f3577b34da6a3ce929d0e0e4736"
	metaSpan    = "00f067aa0ba902b7"
	headerTrace = "0af7651916cd43dd8448eb211c80319c"
	headerSpan  = "b7ad6b7169203331"
	quickTrace  = "11111111111111112222222222222222"
	quickSpan   = "3333333333333333"
)

func traceparent(trace, span string) string { return "00-" + trace + "-" + span + "-01" }

func TestTraces(t *testing.T) {
	recv := newReceiver(t)
	s := start(t, recv.url, serve.HTTPOptions{})

	// The go-sdk client, every request of which carries a traceparent
	// header; the first call's _meta carries another, which wins.
	hc := mcptest.HTTPClient(t, "", nil)
	hc.Transport = withHeader{"Traceparent", traceparent(headerTrace, headerSpan), hc.Transport}
	cs := mcptest.ConnectHTTP(t, s.base+"/mcp", hc, "")
	const secret = "SELECT name FROM customers WHERE name = 'Ada Lovelace'"
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": secret},
		Meta: mcp.Meta{"traceparent": traceparent(metaTrace, metaSpan), "tracestate": "vendor=1"}})
	if err != nil || res.IsError {
		t.Fatalf("run_query: %v %+v", err, res)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "DELETE FROM customers"}})
	if err != nil || !res.IsError {
		t.Fatalf("run_query DELETE: %v %+v", err, res)
	}

	// A plain 2025-06-18 POST, answered by the quick path, its trace
	// context in the header only.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}`
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Traceparent", traceparent(quickTrace, quickSpan))
	resp, err := mcptest.HTTPClient(t, "", nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(reply), `"result"`) {
		t.Fatalf("quick POST: %s %s", resp.Status, reply)
	}

	if err := s.tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("flushing the spans: %v", err)
	}
	spans := recv.got(t)
	byID := map[string]*tracepb.Span{}
	for _, sp := range spans {
		byID[hex.EncodeToString(sp.SpanId)] = sp
		for _, a := range sp.Attributes {
			if strings.Contains(a.Value.String(), "Lovelace") || strings.Contains(a.Value.String(), "SELECT") {
				t.Errorf("span %s has attribute %s = %s: SQL text in a span", sp.Name, a.Key, a.Value)
			}
		}
	}
	// calls are the tools/call spans, by the trace their caller sent.
	calls := map[string]*tracepb.Span{}
	for _, sp := range spans {
		if sp.Kind == tracepb.Span_SPAN_KIND_SERVER && strings.HasPrefix(sp.Name, "tools/call") {
			calls[hex.EncodeToString(sp.TraceId)] = sp
		}
	}

	t.Run("meta traceparent wins over the header", func(t *testing.T) {
		call := calls[metaTrace]
		if call == nil {
			t.Fatalf("no tools/call span in trace %s; spans: %s", metaTrace, names(spans))
		}
		if got := hex.EncodeToString(call.ParentSpanId); got != metaSpan {
			t.Errorf("tools/call's parent is %s, want the caller's span %s", got, metaSpan)
		}
		if call.TraceState != "vendor=1" {
			t.Errorf("tracestate %q, want vendor=1", call.TraceState)
		}
		if call.Name != "tools/call run_query" {
			t.Errorf("span name %q, want tools/call run_query", call.Name)
		}
		want := map[string]string{"sqlmcp.tool": "run_query", "sqlmcp.database": "shop", "sqlmcp.verdict": "ok", "sqlmcp.rows": "1", "mcp.method.name": "tools/call"}
		checkAttrs(t, call, want)

		stmt := child(t, spans, call, "sqlmcp.statement")
		checkAttrs(t, stmt, map[string]string{"db.system.name": "sqlite", "sqlmcp.own": "false", "sqlmcp.rows": "1"})
		if stmt.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("statement span kind %s, want client", stmt.Kind)
		}
		g := child(t, spans, stmt, "sqlmcp.guard")
		checkAttrs(t, g, map[string]string{"sqlmcp.verdict": "accepted"})
		if g.StartTimeUnixNano < stmt.StartTimeUnixNano || g.EndTimeUnixNano > stmt.EndTimeUnixNano {
			t.Errorf("the guard span is not within the statement's")
		}
	})

	t.Run("header traceparent without meta", func(t *testing.T) {
		call := calls[headerTrace]
		if call == nil {
			t.Fatalf("no tools/call span in trace %s; spans: %s", headerTrace, names(spans))
		}
		if got := hex.EncodeToString(call.ParentSpanId); got != headerSpan {
			t.Errorf("tools/call's parent is %s, want %s", got, headerSpan)
		}
		checkAttrs(t, call, map[string]string{"sqlmcp.verdict": "refused"})
		if call.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || call.Status.GetMessage() != "refused" {
			t.Errorf("status %v, want an error saying refused", call.Status)
		}
		stmt := child(t, spans, call, "sqlmcp.statement")
		g := child(t, spans, stmt, "sqlmcp.guard")
		checkAttrs(t, g, map[string]string{"sqlmcp.verdict": "refused"})
	})

	t.Run("quick path header", func(t *testing.T) {
		call := calls[quickTrace]
		if call == nil {
			t.Fatalf("no tools/call span in trace %s; spans: %s", quickTrace, names(spans))
		}
		if got := hex.EncodeToString(call.ParentSpanId); got != quickSpan {
			t.Errorf("tools/call's parent is %s, want %s", got, quickSpan)
		}
		checkAttrs(t, call, map[string]string{"sqlmcp.tool": "list_tables", "sqlmcp.verdict": "ok"})
	})

	t.Run("every span's parent is its caller's or one of ours", func(t *testing.T) {
		callers := map[string]bool{metaSpan: true, headerSpan: true, quickSpan: true}
		for _, sp := range spans {
			p := hex.EncodeToString(sp.ParentSpanId)
			if len(sp.ParentSpanId) > 0 && byID[p] == nil && !callers[p] {
				t.Errorf("span %s has parent %s, which is nobody's", sp.Name, p)
			}
			if parent := byID[p]; parent != nil && !slicesEqual(parent.TraceId, sp.TraceId) {
				t.Errorf("span %s is in another trace than its parent %s", sp.Name, parent.Name)
			}
		}
	})
}

func slicesEqual(a, b []byte) bool { return string(a) == string(b) }

// child is the one span named name whose parent is parent.
func child(t *testing.T, spans []*tracepb.Span, parent *tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	var found []*tracepb.Span
	for _, sp := range spans {
		if sp.Name == name && string(sp.ParentSpanId) == string(parent.SpanId) {
			found = append(found, sp)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans %s under %s, want 1; spans: %s", len(found), name, parent.Name, names(spans))
	}
	return found[0]
}

// checkAttrs checks sp's attributes hold want, values as strings.
func checkAttrs(t *testing.T, sp *tracepb.Span, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, a := range sp.Attributes {
		v := a.Value
		switch {
		case v.GetStringValue() != "":
			got[a.Key] = v.GetStringValue()
		case v.GetValue() == nil:
		default:
			s := v.String()
			_, s, _ = strings.Cut(s, ":")
			got[a.Key] = strings.TrimSpace(s)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("span %s: %s = %q, want %q (all: %v)", sp.Name, k, got[k], w, got)
		}
	}
}

func names(spans []*tracepb.Span) string {
	var b strings.Builder
	for _, sp := range spans {
		fmt.Fprintf(&b, "\n  %s trace %x span %x parent %x", sp.Name, sp.TraceId, sp.SpanId, sp.ParentSpanId)
	}
	return b.String()
}

const token = "0123456789abcdef0123456789abcdef"

func TestMetrics(t *testing.T) {
	s := start(t, "", serve.HTTPOptions{Tokens: []string{token}})
	if s.tel.Tracing() {
		t.Fatal("tracing is on without an endpoint")
	}
	cs := mcptest.ConnectHTTP(t, s.base+"/mcp", mcptest.HTTPClient(t, token, nil), "")
	for _, sql := range []string{"SELECT 1", "SELECT 2 UNION ALL SELECT 3", "DELETE FROM customers"} {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": sql}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT 1", "database": "nope"}}); err != nil {
		t.Fatal(err)
	}

	t.Run("refused without the token", func(t *testing.T) {
		for _, hc := range []*http.Client{mcptest.HTTPClient(t, "", nil), mcptest.HTTPClient(t, "not-the-token-0123456789abcdef", nil)} {
			resp, err := hc.Get(s.base + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(b), "sqlmcp_") {
				t.Errorf("GET /metrics without the token: %s %s", resp.Status, b)
			}
		}
	})

	resp, err := mcptest.HTTPClient(t, token, nil).Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || expfmt.ResponseFormat(resp.Header).FormatType() != expfmt.TypeTextPlain {
		t.Fatalf("GET /metrics: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	// value is the sample of family whose labels include want.
	value := func(family string, want map[string]string) (float64, bool) {
		f := families[family]
		if f == nil {
			return 0, false
		}
	next:
		for _, m := range f.Metric {
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if got[k] != v {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
		return 0, false
	}
	for _, c := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"sqlmcp_tool_calls_total", map[string]string{"tool": "run_query", "database": "shop", "verdict": "ok"}, 2},
		{"sqlmcp_tool_calls_total", map[string]string{"tool": "run_query", "database": "shop", "verdict": "refused"}, 1},
		{"sqlmcp_tool_calls_total", map[string]string{"tool": "run_query", "database": "", "verdict": "error"}, 1},
		{"sqlmcp_tool_rows_total", map[string]string{"tool": "run_query", "database": "shop"}, 3},
		{"sqlmcp_tool_call_duration_seconds", map[string]string{"tool": "run_query"}, 4},
		{"sqlmcp_tool_calls_active", nil, 0},
		{"sqlmcp_build_info", map[string]string{"version": "test"}, 1},
	} {
		got, ok := value(c.family, c.labels)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (found %v), want %v", c.family, c.labels, got, ok, c.want)
		}
	}
	if got, _ := value("sqlmcp_tool_result_bytes_total", map[string]string{"tool": "run_query", "database": "shop"}); got <= 0 {
		t.Errorf("sqlmcp_tool_result_bytes_total = %v, want more than 0", got)
	}
	if h := families["sqlmcp_tool_call_duration_seconds"]; h == nil || len(h.Metric[0].Histogram.Bucket) != 16 || h.Metric[0].Histogram.GetSampleSum() <= 0 {
		t.Errorf("the latency histogram is not one with 15 buckets and +Inf, summing more than 0: %v", h)
	}
	for name, f := range families {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if strings.Contains(l.GetValue(), "SELECT") || l.GetValue() == "nope" {
					t.Errorf("%s has label %s=%q, from what the caller sent", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

func TestMetricsOpen(t *testing.T) {
	s := start(t, "", serve.HTTPOptions{Tokens: []string{token}, MetricsOpen: true})
	resp, err := mcptest.HTTPClient(t, "", nil).Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "sqlmcp_tool_calls_active 0") {
		t.Errorf("GET /metrics with --metrics-open and no token: %s %s", resp.Status, b)
	}
	// /mcp keeps its token.
	resp, err = mcptest.HTTPClient(t, "", nil).Post(s.base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /mcp without the token: %s, want 401", resp.Status)
	}
}

// TestDatabaseMetrics reads the databases' gauges from a set of a SQLite
// and a PostgreSQL source: open, statements left running, and the
// PostgreSQL pool (SQLite's says nothing).
func TestDatabaseMetrics(t *testing.T) {
	f, err := config.FromURLs([]string{"shop=" + dbtest.SQLiteFile(t), "pg=" + dbtest.PostgresDSN(t)}, config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	set := sources.New(f, nil)
	defer set.Close()
	for _, r := range set.Start(t.Context()) {
		if r.Err() != nil {
			t.Fatalf("%s: %v", r.Name, r.Err())
		}
	}
	// Start returns before the end of each try (PostgreSQL's function
	// catalog, SQLite's quick_check): a source is open once it ends.
	set.Settled(t.Context())
	tel, err := telemetry.New(&telemetry.Options{Metrics: true, Sources: set})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	got := map[string]float64{}
	for name, fam := range families {
		for _, m := range fam.Metric {
			key := name
			for _, l := range m.Label {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	for key, want := range map[string]float64{
		"sqlmcp_database_open database=shop":                 1,
		"sqlmcp_database_open database=pg":                   1,
		"sqlmcp_statements_left_running database=shop":       0,
		"sqlmcp_statements_left_running database=pg":         0,
		"sqlmcp_pool_connections database=pg state=in_use":   0,
		"sqlmcp_pool_max_connections database=pg":            8,
		"sqlmcp_pool_connections database=pg state=open > 0": 1,
	} {
		if k, ok := strings.CutSuffix(key, " > 0"); ok {
			if got[k] <= 0 {
				t.Errorf("%s = %v, want more than 0", k, got[k])
			}
			continue
		}
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (found %v), want %v", key, v, ok, want)
		}
	}
	for key := range got {
		if strings.HasPrefix(key, "sqlmcp_pool") && strings.Contains(key, "database=shop") {
			t.Errorf("%s: SQLite has no pool to report", key)
		}
	}
}
