package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// Test tokens; each at least 16 characters.
const (
	fileToken = "file-token-0123456789abcdef"
	envToken  = "env-token-fedcba9876543210"
)

// Runaway queries: they run until something stops them.
const (
	sqliteRunaway   = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1e12) SELECT count(*) FROM c"
	postgresRunaway = "SELECT count(*) FROM generate_series(1, 1e12)"
)

// logSink collects the JSON lines run logs, for tests to wait on. zerolog
// writes one whole line per Write.
type logSink struct {
	mu      sync.Mutex
	raw     bytes.Buffer
	events  []map[string]any
	changed chan struct{} // closed, and replaced, on every write
}

func newLogSink() *logSink { return &logSink{changed: make(chan struct{})} }

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.raw.Write(p)
	for line := range strings.Lines(string(p)) {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			ev = map[string]any{"not_json": line}
		}
		l.events = append(l.events, ev)
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.raw.String()
}

// find returns the events whose fields include every key and value of
// want ("*" matches any value).
func (l *logSink) find(want map[string]any) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, ev := range l.events {
		if matches(ev, want) {
			out = append(out, ev)
		}
	}
	return out
}

func matches(ev, want map[string]any) bool {
	for k, v := range want {
		got, ok := ev[k]
		if !ok || (v != "*" && fmt.Sprint(got) != fmt.Sprint(v)) {
			return false
		}
	}
	return true
}

// index is the position of the first event matching want, or -1.
func (l *logSink) index(want map[string]any) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, ev := range l.events {
		if matches(ev, want) {
			return i
		}
	}
	return -1
}

// wait returns the first event matching want, waiting up to d for it.
func (l *logSink) wait(t testing.TB, d time.Duration, want map[string]any) map[string]any {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		changed := l.changed
		l.mu.Unlock()
		if evs := l.find(want); len(evs) > 0 {
			return evs[0]
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no log event like %v within %s; the log:\n%s", want, d, l)
		}
	}
}

// testServer is sqlmcp run in-process by run() with --http.
type testServer struct {
	base   string // scheme://127.0.0.1:port
	log    *logSink
	cancel context.CancelFunc // ends run's ctx: SIGTERM
	done   chan error         // run's result
}

// startHTTP runs sqlmcp serve with args, on 127.0.0.1:0 unless args say
// where, and env as its environment; it learns the port from the start
// event. The server stops when the test ends.
func startHTTP(t testing.TB, env map[string]string, args ...string) *testServer {
	t.Helper()
	if !slices.Contains(args, "--http") {
		args = append(args, "--http", "127.0.0.1:0")
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{log: newLogSink(), cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"serve", "--log-level", "debug"}, args...), strings.NewReader(""), io.Discard, s.log,
			func(k string) string { return env[k] })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("the server did not stop")
		}
	})
	deadline := time.After(30 * time.Second)
	for {
		s.log.mu.Lock()
		changed := s.log.changed
		s.log.mu.Unlock()
		if evs := s.log.find(map[string]any{"event": "start", "transport": "http"}); len(evs) > 0 {
			s.base = strings.TrimSuffix(evs[0]["url"].(string), "/mcp")
			return s
		}
		select {
		case <-changed:
		case err := <-s.done:
			t.Fatalf("run returned before serving: %v\n%s", err, s.log)
		case <-deadline:
			t.Fatalf("no start event:\n%s", s.log)
		}
	}
}

// stop is SIGTERM: it ends run's ctx and returns run's error.
func (s *testServer) stop(t testing.TB) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after its context ended")
		return nil
	}
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// httpClient returns a client that sends token (if any) over a transport
// of its own, so tests do not share connections.
func httpClient(t testing.TB, token string, tlsConfig *tls.Config) *http.Client {
	tr := &http.Transport{TLSClientConfig: tlsConfig}
	t.Cleanup(tr.CloseIdleConnections)
	var rt http.RoundTripper = tr
	if token != "" {
		rt = bearer{token, tr}
	}
	return &http.Client{Transport: rt}
}

// connect connects the go-sdk's streamable HTTP client to endpoint,
// asking for protocol version (the latest when "").
func connect(t testing.TB, endpoint string, hc *http.Client, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := client.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s (protocol %q): %v", endpoint, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls tool and returns the text of its result and whether it
// is an error; a protocol or transport error fails the test.
func callText(t testing.TB, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	text, isErr, err := call(ctx, cs, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return text, isErr
}

// call is callText for goroutines other than the test's.
func call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (text string, isErr bool, err error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError, nil
}

// everyTool is one call of each tool on the fixture and what its text holds.
var everyTool = []struct {
	tool string
	args map[string]any
	want string
}{
	{"list_tables", map[string]any{}, `"Order Items" (table, 5 rows`},
	{"describe_table", map[string]any{"table": "order"}, "- customer_id INTEGER NOT NULL"},
	{"search_schema", map[string]any{"query": "free meal"}, `"SchoolStats"."Free Meal Count (K-12)"`},
	{"sample_values", map[string]any{"table": "products", "column": "category"}, "'book'"},
	{"distinct_values", map[string]any{"table": "order", "column": "status"}, "- 'shipped': 2"},
	{"run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}, "n\n4\n(1 row)"},
}

// TestHTTPEveryTool lists and calls every tool with the go-sdk's
// streamable HTTP client at every protocol revision it speaks: the server
// is stateless, so each works, 2026-07-28 (discover, no initialize) too.
func TestHTTPEveryTool(t *testing.T) {
	s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken}, "--db", dbtest.SQLiteFile(t))
	hc := httpClient(t, envToken, nil)
	for _, version := range mcp.SupportedProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, s.base+"/mcp", hc, version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %s, want %s", got, version)
			}
			var names []string
			for tool, err := range cs.Tools(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if want := []string{"describe_table", "distinct_values", "list_tables", "run_query", "sample_values", "search_schema"}; !slices.Equal(names, want) {
				t.Errorf("tools: got %v, want %v", names, want)
			}
			for _, c := range everyTool {
				if text, isErr := callText(t, t.Context(), cs, c.tool, c.args); isErr || !strings.Contains(text, c.want) {
					t.Errorf("%s: got isError=%v %q, want %q", c.tool, isErr, text, c.want)
				}
			}
			if text, isErr := callText(t, t.Context(), cs, "run_query", map[string]any{"sql": "DELETE FROM customers"}); !isErr {
				t.Errorf("a DELETE: got %q, want a refusal", text)
			}
		})
	}
	// One access-log event per request, with the tool and the token's
	// fingerprint; never the token.
	// (The server logs a request after answering it: wait for the events.)
	want := map[string]any{"event": "http", "mcp_method": "tools/call", "tool": "run_query", "status": 200}
	waitCount(t, s.log, want, 2*len(mcp.SupportedProtocolVersions()))
	calls := s.log.find(want)
	for _, ev := range calls {
		for _, k := range []string{"method", "path", "duration", "bytes", "remote"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("access-log event without %s: %v", k, ev)
			}
		}
		if ev["token_fingerprint"] != newToken(envToken).fingerprint {
			t.Errorf("access-log event with fingerprint %v, want %s", ev["token_fingerprint"], newToken(envToken).fingerprint)
		}
	}
	if len(s.log.find(map[string]any{"event": "tool_call", "tool": "run_query", "verdict": "refused"})) == 0 {
		t.Error("no audit event for the refused DELETE")
	}
	if strings.Contains(s.log.String(), envToken) {
		t.Error("the token is in the log")
	}
	for _, ev := range s.log.find(map[string]any{"not_json": "*"}) {
		t.Errorf("a log line that is not JSON: %q", ev["not_json"])
	}
}

// rpc posts one JSON-RPC message to /mcp as a plain HTTP client would and
// returns the response and, for a call, the JSON-RPC reply it carries
// (from an SSE or a JSON body).
func rpc(t testing.TB, ctx context.Context, hc *http.Client, url string, header map[string]string, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	}
	payload := data
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		payload = nil
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				payload = []byte(d)
			}
		}
	}
	var reply map[string]any
	if err := json.Unmarshal(payload, &reply); err != nil {
		t.Fatalf("a reply that is not JSON-RPC: %q", data)
	}
	return resp, reply
}

const (
	initialize2025 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	listTables2025 = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_tables","arguments":{}}}`
)

// TestHTTPPlainClient2025 is a client written from the 2025-06-18 spec
// with nothing but HTTP POSTs: initialize, then a tools/call with no
// session (none is given) and no initialized notification.
func TestHTTPPlainClient2025(t *testing.T) {
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t))
	hc := httpClient(t, "", nil)
	resp, reply := rpc(t, t.Context(), hc, s.base+"/mcp", nil, initialize2025)
	if resp.StatusCode != http.StatusOK || reply["result"] == nil {
		t.Fatalf("initialize: got %s %v", resp.Status, reply)
	}
	if v := reply["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Errorf("negotiated %v, want 2025-06-18", v)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		t.Errorf("a stateless server gave a session id %q", id)
	}
	resp, reply = rpc(t, t.Context(), hc, s.base+"/mcp", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, listTables2025)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/call: got %s", resp.Status)
	}
	text := fmt.Sprint(reply["result"])
	if !strings.Contains(text, `"Order Items" (table, 5 rows`) {
		t.Errorf("tools/call: got %v", reply)
	}
}

// TestHTTPAuth: tokens from a file and from the environment are both
// accepted (rotation); a missing or wrong one gets 401 with
// WWW-Authenticate; the log holds fingerprints, never tokens.
func TestHTTPAuth(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(file, []byte("# rotated in on Monday\n\n  "+fileToken+"  \n# the old one goes Friday\n"), 0o600)
	s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken + ", "}, "--db", dbtest.SQLiteFile(t), "--auth-token-file", file)

	start := s.log.find(map[string]any{"event": "start"})[0]
	if start["auth"] != true || start["tokens"] != float64(2) {
		t.Errorf("start event: auth %v, tokens %v; want true, 2", start["auth"], start["tokens"])
	}
	for _, tc := range []struct {
		name, header, wantAuth string
	}{
		{"missing", "", `Bearer realm="sqlmcp"`},
		{"not bearer", "Basic dXNlcjpwYXNz", `Bearer realm="sqlmcp"`},
		{"wrong", "Bearer " + fileToken + "x", `Bearer realm="sqlmcp", error="invalid_token"`},
		{"prefix of a token", "Bearer " + fileToken[:20], `Bearer realm="sqlmcp", error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.header != "" {
				h["Authorization"] = tc.header
			}
			resp, _ := rpc(t, t.Context(), httpClient(t, "", nil), s.base+"/mcp", h, initialize2025)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != tc.wantAuth {
				t.Errorf("got %s, WWW-Authenticate %q; want 401, %q", resp.Status, resp.Header.Get("WWW-Authenticate"), tc.wantAuth)
			}
		})
	}
	t.Run("go-sdk client without a token", func(t *testing.T) {
		client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: httpClient(t, "", nil), MaxRetries: -1}
		if _, err := client.Connect(t.Context(), tr, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("got %v, want a 401", err)
		}
	})
	for _, tok := range []string{fileToken, envToken} {
		cs := connect(t, s.base+"/mcp", httpClient(t, tok, nil), "")
		if text, isErr := callText(t, t.Context(), cs, "list_tables", nil); isErr {
			t.Errorf("token %s: %s", newToken(tok).fingerprint, text)
		}
		s.log.wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "list_tables", "token_fingerprint": newToken(tok).fingerprint})
	}
	s.log.wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": "invalid"})
	s.log.wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": "missing"})
	for _, tok := range []string{fileToken, envToken, fileToken[:20]} {
		if strings.Contains(s.log.String(), tok) {
			t.Errorf("the log holds a token (%s)", newToken(tok).fingerprint)
		}
	}
}

// TestHTTPStartRefusals: mistakes in the HTTP settings stop sqlmcp before
// it serves, with exit status 2.
func TestHTTPStartRefusals(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("tooshort\n"), 0o600)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"all interfaces without auth", []string{"--http", "0.0.0.0:0"}, nil, "reachable from other machines and no bearer token is set"},
		{"empty host without auth", []string{"--http", ":8080"}, nil, "reachable from other machines"},
		{"IPv6 any without auth", []string{"--http", "[::]:8080"}, nil, "reachable from other machines"},
		{"a host name without auth", []string{"--http", "db.example.com:8080"}, nil, "reachable from other machines"},
		{"port only", []string{"--http", "8080"}, nil, `--http "8080" is not host:port`},
		{"named port", []string{"--http", "127.0.0.1:http"}, nil, "is not host:port"},
		{"short token in a file", []string{"--http", "127.0.0.1:0", "--auth-token-file", short}, nil, "has 8 characters; use at least 16"},
		{"short token in the env", []string{"--http", "127.0.0.1:0"}, map[string]string{"SQLMCP_AUTH_TOKENS": "0123456789abcdefgh,short"}, "has 5 characters"},
		{"token with a space", []string{"--http", "127.0.0.1:0", "--auth-tokens", "0123456789 abcdefgh"}, nil, "holds a space"},
		{"missing token file", []string{"--http", "127.0.0.1:0", "--auth-token-file", "/no/such/file"}, nil, "reading --auth-token-file"},
		{"tokens and insecure", []string{"--http", "0.0.0.0:0", "--auth-tokens", fileToken, "--insecure-no-auth"}, nil, "contradict"},
		{"cert without key", []string{"--http", "127.0.0.1:0", "--tls-cert", "c.pem"}, nil, "give --tls-cert and --tls-key together"},
		{"key without cert", []string{"--http", "127.0.0.1:0"}, map[string]string{"SQLMCP_TLS_KEY": "k.pem"}, "give --tls-cert and --tls-key together"},
		{"unreadable cert", []string{"--http", "127.0.0.1:0", "--tls-cert", "/no/c.pem", "--tls-key", "/no/k.pem"}, nil, "loading --tls-cert and --tls-key"},
		{"origin with a path", []string{"--http", "127.0.0.1:0", "--allowed-origins", "https://app.example.com/x"}, nil, "is not an origin"},
		{"bad body limit", []string{"--http", "127.0.0.1:0", "--max-body-bytes", "0"}, nil, "--max-body-bytes must be positive"},
		{"negative concurrency", []string{"--max-concurrency", "-1"}, nil, "--max-concurrency must be 0"},
		{"address in use", []string{"--http", "127.0.0.1:1"}, nil, "listening on 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "address in use" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				tt.args[1] = ln.Addr().String()
				tt.want = "listening on " + ln.Addr().String()
			}
			var stderr bytes.Buffer
			args := append([]string{"serve", "--db", path}, tt.args...)
			err := run(t.Context(), args, strings.NewReader(""), io.Discard, &stderr, func(k string) string { return tt.env[k] })
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error (exit status 2)", err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want one line containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "tooshort") || strings.Contains(err.Error(), "short,") {
				t.Errorf("the error holds the token: %q", err)
			}
		})
	}
}

// TestHTTPInsecureNoAuth: --insecure-no-auth serves every interface
// without tokens, and says so loudly.
func TestHTTPInsecureNoAuth(t *testing.T) {
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--http", "0.0.0.0:0", "--insecure-no-auth")
	s.log.wait(t, time.Second, map[string]any{"event": "insecure_no_auth", "level": "warn"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	cs := connect(t, "http://127.0.0.1:"+port+"/mcp", httpClient(t, "", nil), "")
	if text, isErr := callText(t, t.Context(), cs, "list_tables", nil); isErr {
		t.Error(text)
	}
}

// TestHTTPHostAndOrigin: DNS-rebinding protection. A Host or an Origin
// that is not on the list gets 403; no Origin is fine; --allowed-hosts and
// --allowed-origins extend the list, even on a loopback address (where the
// go-sdk's own check, which sqlmcp's replaces, would refuse a
// non-loopback Host).
func TestHTTPHostAndOrigin(t *testing.T) {
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t),
		"--allowed-origins", "https://App.Example.com", "--allowed-hosts", "mcp.internal,proxy.internal:9000")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	hc := httpClient(t, "", nil)
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no origin", nil, 200},
		{"own origin", map[string]string{"Origin": s.base}, 200},
		{"localhost origin", map[string]string{"Origin": "http://localhost:" + port}, 200},
		{"allowed origin", map[string]string{"Origin": "https://app.example.com"}, 200},
		{"allowed origin, default port spelled out", map[string]string{"Origin": "https://app.example.com:443"}, 200},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, 403},
		{"allowed host, other scheme", map[string]string{"Origin": "http://app.example.com"}, 403},
		{"loopback on another port", map[string]string{"Origin": "http://localhost:6274"}, 403},
		{"null origin", map[string]string{"Origin": "null"}, 403},
		{"localhost host", map[string]string{"Host": "localhost:" + port}, 200},
		{"forwarded port", map[string]string{"Host": "localhost:9999"}, 200},
		{"IPv6 loopback host", map[string]string{"Host": "[::1]:" + port}, 200},
		{"allowed host", map[string]string{"Host": "MCP.internal"}, 200},
		{"allowed host with its port", map[string]string{"Host": "proxy.internal:9000"}, 200},
		{"allowed host, other port", map[string]string{"Host": "proxy.internal:9001"}, 403},
		{"rebound name", map[string]string{"Host": "evil.example:" + port}, 403},
		{"rebound name and its origin", map[string]string{"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", tt.header, initialize2025)
			if resp.StatusCode != tt.want {
				body, _ := io.ReadAll(resp.Body)
				t.Errorf("got %s %q, want %d", resp.Status, body, tt.want)
			}
		})
	}
	t.Run("preflight from an allowed origin", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodOptions, s.base+"/mcp", nil)
		req.Header.Set("Origin", "https://app.example.com")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "authorization") {
			t.Errorf("got %s %v", resp.Status, resp.Header)
		}
	})
}

// TestHTTPBodyLimit: a body over --max-body-bytes gets 413, with or
// without a Content-Length.
func TestHTTPBodyLimit(t *testing.T) {
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--max-body-bytes", "4096")
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT '` +
		strings.Repeat("x", 8000) + `'"}}}`
	hc := httpClient(t, "", nil)
	resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", nil, big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("with a length: got %s, want 413", resp.Status)
	}
	// A chunked body: no length to check up front.
	req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", io.MultiReader(strings.NewReader(big)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	r, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength > 0 {
		t.Errorf("chunked: got %s (length %d), want 413", r.Status, req.ContentLength)
	}
	// Under the limit is fine.
	if resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", nil, initialize2025); resp.StatusCode != http.StatusOK {
		t.Errorf("a small body: got %s", resp.Status)
	}
}

// TestHTTPBusy: with one turn and a runaway holding it, calls wait up to
// the query timeout and then get the busy tool error; none hangs. Three
// runaways: whichever gets the turn first holds it for the timeout; the
// next holds it for a whole timeout more, longer than the third waits.
func TestHTTPBusy(t *testing.T) {
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--max-concurrency", "1", "--timeout", "1s")
	cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
	var wg sync.WaitGroup
	texts := make([]string, 3)
	for i := range texts {
		wg.Go(func() {
			text, _, err := call(t.Context(), cs, "run_query", map[string]any{"sql": sqliteRunaway})
			texts[i] = text + fmt.Sprint(err)
		})
		if i == 0 {
			s.log.wait(t, 5*time.Second, map[string]any{"event": "mcp_request", "tool": "run_query"})
		}
	}
	wg.Wait()
	busy, timeout := 0, 0
	for _, text := range texts {
		switch {
		case strings.Contains(text, "busy: 1 queries are running and this call waited 1s for a turn; retry later"):
			busy++
		case strings.Contains(text, "ran longer than the 1s timeout"):
			timeout++
		default:
			t.Errorf("got %q, want busy or a timeout", text)
		}
	}
	if busy == 0 || timeout == 0 {
		t.Errorf("got %d busy and %d timed out, want some of each: %q", busy, timeout, texts)
	}
	if n := len(s.log.find(map[string]any{"event": "tool_call", "verdict": "busy"})); n != busy {
		t.Errorf("%d busy calls in the audit log, want %d", n, busy)
	}
}

// TestHTTPCancelOnDisconnect: a client that gives up on a call stops its
// query inside the engine, whatever its protocol revision (the SDK ties
// 2026-07-28 handlers to the request; sqlmcp's middleware ties the older
// ones), on both engines.
func TestHTTPCancelOnDisconnect(t *testing.T) {
	engines := []struct{ name, dsn, runaway string }{{"sqlite", dbtest.SQLiteFile(t), sqliteRunaway}}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		engines = append(engines, struct{ name, dsn, runaway string }{"postgres", dbtest.PostgresDSN(t), postgresRunaway})
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			s := startHTTP(t, nil, "--db", e.dsn, "--timeout", "60s")
			for _, version := range []string{"2026-07-28", "2025-06-18", "plain 2025-06-18"} {
				t.Run(version, func(t *testing.T) {
					before := len(s.log.find(map[string]any{"event": "tool_call", "verdict": "cancelled"}))
					seen := len(s.log.find(map[string]any{"event": "mcp_request", "tool": "run_query"}))
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					hc := httpClient(t, "", nil)
					var cs *mcp.ClientSession
					if version != "plain 2025-06-18" {
						cs = connect(t, s.base+"/mcp", hc, version)
					}
					returned := make(chan struct{})
					go func() {
						defer close(returned)
						if version == "plain 2025-06-18" {
							body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":%q}}}`, e.runaway)
							req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/mcp", strings.NewReader(body))
							req.Header.Set("Content-Type", "application/json")
							req.Header.Set("Accept", "application/json, text/event-stream")
							req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
							if resp, err := hc.Do(req); err == nil {
								io.Copy(io.Discard, resp.Body)
								resp.Body.Close()
							}
							return
						}
						cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": e.runaway}})
					}()
					waitCount(t, s.log, map[string]any{"event": "mcp_request", "tool": "run_query"}, seen+1)
					if e.name == "postgres" {
						waitActive(t, e.dsn, func(n int) bool { return n > 0 })
					}
					// The runaway blocks nobody else.
					other := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
					if text, isErr := callText(t, t.Context(), other, "describe_table", map[string]any{"table": "order"}); isErr {
						t.Errorf("another client during the runaway: %s", text)
					}
					select {
					case <-returned:
						t.Fatal("the runaway call returned before the client gave up")
					default:
					}
					start := time.Now()
					cancel()
					<-returned
					waitCount(t, s.log, map[string]any{"event": "tool_call", "verdict": "cancelled"}, before+1)
					if e.name == "postgres" {
						waitActive(t, e.dsn, func(n int) bool { return n == 0 })
					}
					t.Logf("stopped %s after the client left", time.Since(start).Round(time.Millisecond))
				})
			}
		})
	}
}

// waitCount waits until the log holds n events like want; well under the
// 60 s query timeout, so only the cancellation can have produced them.
func waitCount(t testing.TB, l *logSink, want map[string]any, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(l.find(want)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d events like %v within 10s:\n%s", n, want, l)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitActive polls pg_stat_activity until the number of active queries
// sqlmcp runs on dsn's database satisfies ok.
func waitActive(t testing.TB, dsn string, ok func(int) bool) {
	t.Helper()
	conn := dbtest.PostgresConn(t, dsn)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'sqlmcp' AND state = 'active' AND datname = current_database()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if ok(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pg_stat_activity still shows %d active sqlmcp queries", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHTTPShutdown: on SIGTERM a call in flight finishes within the
// grace; one still running past the grace is cancelled, its query
// stopped; either way run returns nil (exit status 0).
func TestHTTPShutdown(t *testing.T) {
	t.Run("call finishes within the grace", func(t *testing.T) {
		s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--shutdown-grace", "20s")
		cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
		// About a second of work on this machine; the grace is far longer.
		const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5000000) SELECT count(*) AS n FROM c"
		result := make(chan string, 1)
		go func() {
			text, isErr, err := call(context.Background(), cs, "run_query", map[string]any{"sql": slow})
			result <- fmt.Sprint(text, isErr, err)
		}()
		s.log.wait(t, 5*time.Second, map[string]any{"event": "mcp_request", "tool": "run_query"})
		if err := s.stop(t); err != nil {
			t.Errorf("run: %v, want nil (exit status 0)", err)
		}
		if text := <-result; !strings.Contains(text, "5000000") || !strings.HasSuffix(text, "false <nil>") {
			t.Errorf("the call in flight: got %q, want its count", text)
		}
		stopping := s.log.index(map[string]any{"event": "stopping"})
		call := s.log.index(map[string]any{"event": "tool_call", "verdict": "ok"})
		if stopping < 0 || call < stopping {
			t.Errorf("the call ended (event %d) before the shutdown began (event %d): nothing was in flight", call, stopping)
		}
		if s.log.index(map[string]any{"event": "cancel_in_flight"}) >= 0 {
			t.Error("a call was cancelled within the grace")
		}
	})
	t.Run("call past the grace is cancelled", func(t *testing.T) {
		engines := []struct{ name, dsn, runaway string }{{"sqlite", dbtest.SQLiteFile(t), sqliteRunaway}}
		if os.Getenv(dbtest.PostgresEnv) != "" {
			engines = append(engines, struct{ name, dsn, runaway string }{"postgres", dbtest.PostgresDSN(t), postgresRunaway})
		}
		for _, e := range engines {
			t.Run(e.name, func(t *testing.T) {
				s := startHTTP(t, nil, "--db", e.dsn, "--shutdown-grace", "200ms", "--timeout", "60s")
				cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "2025-06-18")
				go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": e.runaway}})
				s.log.wait(t, 5*time.Second, map[string]any{"event": "mcp_request", "tool": "run_query"})
				if e.name == "postgres" {
					waitActive(t, e.dsn, func(n int) bool { return n > 0 })
				}
				start := time.Now()
				if err := s.stop(t); err != nil {
					t.Errorf("run: %v, want nil (exit status 0)", err)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("shutdown took %s: the query ran on", d)
				}
				for _, want := range []map[string]any{
					{"event": "stopping"}, {"event": "cancel_in_flight"}, {"event": "tool_call", "verdict": "cancelled"}, {"event": "stop"},
				} {
					if s.log.index(want) < 0 {
						t.Errorf("no event like %v in the log:\n%s", want, s.log)
					}
				}
				if s.log.index(map[string]any{"event": "tool_call"}) < s.log.index(map[string]any{"event": "cancel_in_flight"}) {
					t.Error("the call ended before the grace was over")
				}
				if e.name == "postgres" {
					waitActive(t, e.dsn, func(n int) bool { return n == 0 })
				}
			})
		}
	})
}

// roundRobin sends each request to the next of several servers, like a
// load balancer without sticky sessions.
type roundRobin struct {
	hosts []string
	next  atomic.Int64
	base  http.RoundTripper
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Host = rr.hosts[int(rr.next.Add(1)-1)%len(rr.hosts)]
	r.Host = ""
	return rr.base.RoundTrip(r)
}

// TestHTTPStatelessReplicas: two servers sharing nothing but the database
// file answer one client whose requests alternate between them.
func TestHTTPStatelessReplicas(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	a := startHTTP(t, nil, "--db", path)
	b := startHTTP(t, nil, "--db", path)
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			rr := &roundRobin{hosts: []string{strings.TrimPrefix(a.base, "http://"), strings.TrimPrefix(b.base, "http://")}, base: tr}
			cs := connect(t, a.base+"/mcp", &http.Client{Transport: rr}, version)
			for _, c := range everyTool {
				if text, isErr := callText(t, t.Context(), cs, c.tool, c.args); isErr || !strings.Contains(text, c.want) {
					t.Errorf("%s: got isError=%v %q, want %q", c.tool, isErr, text, c.want)
				}
			}
		})
	}
	t.Run("plain 2025-06-18: initialize on one, call on the other", func(t *testing.T) {
		hc := httpClient(t, "", nil)
		if resp, _ := rpc(t, t.Context(), hc, a.base+"/mcp", nil, initialize2025); resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %s", resp.Status)
		}
		_, reply := rpc(t, t.Context(), hc, b.base+"/mcp", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, listTables2025)
		if !strings.Contains(fmt.Sprint(reply["result"]), "Order Items") {
			t.Errorf("tools/call on the other server: %v", reply)
		}
	})
	// Each server answered several of the tool calls.
	for _, s := range []*testServer{a, b} {
		waitCount(t, s.log, map[string]any{"event": "http", "mcp_method": "tools/call", "status": 200}, 3)
	}
}

// TestHTTPHealth: /healthz and /readyz answer without a token, and say
// nothing about the data; /readyz fails when the database does not answer.
func TestHTTPHealth(t *testing.T) {
	s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken}, "--db", dbtest.SQLiteFile(t))
	hc := httpClient(t, "", nil)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := hc.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
			t.Errorf("%s: got %s %q, want 200 ok", path, resp.Status, body)
		}
	}
	if resp, err := hc.Post(s.base+"/healthz", "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz: got %v %v, want 405", resp.Status, err)
	}
	if resp, err := hc.Get(s.base + "/mcp"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /mcp without a token: got %v %v, want 401", resp.Status, err)
	}

	t.Run("database gone", func(t *testing.T) {
		db := dbtest.SQLite(t, nil)
		db.Close()
		hs := &httpServer{log: zerolog.Nop(), db: db}
		rec := httptest.NewRecorder()
		hs.readyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("got %d, want 503", rec.Code)
		}
	})
}

// TestHTTPTLS serves HTTPS with a self-signed certificate made here.
func TestHTTPTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("url %s, want https", s.base)
	}
	cs := connect(t, s.base+"/mcp", httpClient(t, "", &tls.Config{RootCAs: pool}), "")
	if text, isErr := callText(t, t.Context(), cs, "run_query", map[string]any{"sql": "SELECT 42 AS answer"}); isErr || !strings.Contains(text, "42") {
		t.Errorf("got %q", text)
	}
	// HTTP/2 too, with this server's own https origin.
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	resp, _ := rpc(t, t.Context(), &http.Client{Transport: tr}, s.base+"/mcp", map[string]string{"Origin": s.base}, initialize2025)
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Errorf("own https origin over HTTP/2: %s %s", resp.Proto, resp.Status)
	}
	if _, err := httpClient(t, "", nil).Get(s.base + "/healthz"); err == nil {
		t.Error("a client that does not trust the certificate got through")
	}
	if ev := s.log.find(map[string]any{"event": "start"})[0]; ev["tls"] != true {
		t.Errorf("start event: tls %v", ev["tls"])
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and localhost
// and returns its files and a pool that trusts it.
func selfSigned(t testing.TB) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "sqlmcp test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600)
	return certFile, keyFile, pool
}

// TestHTTPSettingsFromEnvironment: the HTTP flags read their SQLMCP_*
// variables; --http= serves stdio even when SQLMCP_HTTP is set, and HTTP
// settings on stdio are noted for a warning rather than refused.
func TestHTTPSettingsFromEnvironment(t *testing.T) {
	env := map[string]string{
		"SQLMCP_DB": "x.db", "SQLMCP_HTTP": "127.0.0.1:9", "SQLMCP_AUTH_TOKENS": envToken + "," + envToken,
		"SQLMCP_ALLOWED_ORIGINS": "https://App.example.com", "SQLMCP_MAX_BODY_BYTES": "2048", "SQLMCP_SHUTDOWN_GRACE": "3s",
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServe(nil, nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.http != "127.0.0.1:9" || len(cfg.tokens) != 1 || cfg.maxBodyBytes != 2048 || cfg.shutdownGrace != 3*time.Second ||
		!slices.Equal(cfg.origins, []string{"https://app.example.com:443"}) {
		t.Errorf("got http %q, %d tokens, body %d, grace %s, origins %v", cfg.http, len(cfg.tokens), cfg.maxBodyBytes, cfg.shutdownGrace, cfg.origins)
	}
	cfg, err = parseServe([]string{"--http="}, nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.http != "" || !slices.Equal(cfg.httpNotes, []string{"--auth-tokens", "--allowed-origins"}) {
		t.Errorf("--http=: got http %q, notes %v; want stdio, with the HTTP settings noted", cfg.http, cfg.httpNotes)
	}
}
