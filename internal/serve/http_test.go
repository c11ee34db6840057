package serve_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestHTTPEveryTool lists and calls every tool with the go-sdk's
// streamable HTTP client at every protocol revision it speaks: the server
// is stateless, so each works, 2026-07-28 (discover, no initialize) too.
func TestHTTPEveryTool(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{Tokens: []string{tokenB}}, 0)
	hc := httpClient(t, tokenB, nil)
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
				if text, isErr := callText(t, cs, c.tool, c.args); isErr || !strings.Contains(text, c.want) {
					t.Errorf("%s: got isError=%v %q, want %q", c.tool, isErr, text, c.want)
				}
			}
			if text, isErr := callText(t, cs, "run_query", map[string]any{"sql": "DELETE FROM customers"}); !isErr {
				t.Errorf("a DELETE: got %q, want a refusal", text)
			}
		})
	}
	// One access-log event per request, with the tool and the token's
	// fingerprint; never the token. (The server logs a request after
	// answering it: wait for the events.)
	want := map[string]any{"event": "http", "mcp_method": "tools/call", "tool": "run_query", "status": 200}
	for _, ev := range s.log.WaitCount(t, 10*time.Second, want, 2*len(mcp.SupportedProtocolVersions())) {
		for _, k := range []string{"method", "path", "duration_ms", "bytes", "remote"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("access-log event without %s: %v", k, ev)
			}
		}
		if ev["token_fingerprint"] != serve.Fingerprint(tokenB) {
			t.Errorf("access-log event with fingerprint %v, want %s", ev["token_fingerprint"], serve.Fingerprint(tokenB))
		}
	}
	if len(s.log.Find(map[string]any{"event": "tool_call", "tool": "run_query", "verdict": "refused"})) == 0 {
		t.Error("no audit event for the refused DELETE")
	}
	if strings.Contains(s.log.String(), tokenB) {
		t.Error("the token is in the log")
	}
	for _, ev := range s.log.Find(map[string]any{"not_json": "*"}) {
		t.Errorf("a log line that is not JSON: %q", ev["not_json"])
	}
}

// TestHTTPRequestLinesTogether: a tools/call request's two lines, its
// call's tool_call event and its access event, go out in one write, in
// that order, before the client has the reply; other lines go out alone.
func TestHTTPRequestLinesTogether(t *testing.T) {
	w := &writes{}
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{LogOutput: w}, 0)
	hc := httpClient(t, "", nil)
	rpc(t, t.Context(), hc, s.base+"/mcp", nil, initialize2025)
	before := len(w.all())
	if resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, listTables2025); resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/call: got %s", resp.Status)
	}
	got := w.all()[before:]
	if len(got) != 1 {
		t.Fatalf("the call's request made %d writes, want 1: %q", len(got), got)
	}
	var events []string
	for line := range strings.Lines(got[0]) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("a line that is not JSON: %q", line)
		}
		events = append(events, fmt.Sprint(ev["event"], "/", ev["tool"]))
	}
	if want := []string{"tool_call/list_tables", "http/list_tables"}; !slices.Equal(events, want) {
		t.Errorf("the write holds %v, want %v", events, want)
	}
	if len(s.log.Find(map[string]any{"event": "start", "transport": "http"})) != 1 {
		t.Error("the start event, logged outside any request, did not go to Logger")
	}
}

// writes keeps each Write's bytes apart.
type writes struct {
	mu sync.Mutex
	ps []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ps = append(w.ps, string(p))
	return len(p), nil
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.ps)
}

// TestHTTPPlainClient2025 is a client written from the 2025-06-18 spec
// with nothing but HTTP POSTs: initialize, then a tools/call with no
// session (none is given) and no initialized notification.
func TestHTTPPlainClient2025(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{}, 0)
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
	if text := fmt.Sprint(reply["result"]); !strings.Contains(text, `"Order Items" (table, 5 rows`) {
		t.Errorf("tools/call: got %v", reply)
	}
	// A call is answered by sqlmcp's own one-request connection, as
	// JSON; an unknown tool is the SDK's JSON-RPC error all the same.
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("tools/call: Content-Type %q, want application/json", ct)
	}
	_, reply = rpc(t, t.Context(), hc, s.base+"/mcp", map[string]string{"Mcp-Protocol-Version": "2025-06-18"},
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"drop_tables","arguments":{}}}`)
	if e, _ := reply["error"].(map[string]any); reply["id"] != "x" || e == nil || e["code"] != float64(-32602) || !strings.Contains(fmt.Sprint(e["message"]), `unknown tool "drop_tables"`) {
		t.Errorf("an unknown tool: got %v, want error -32602", reply)
	}
	// A protocol revision the SDK does not speak is the SDK's to refuse.
	if resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", map[string]string{"Mcp-Protocol-Version": "2024-01-01"}, listTables2025); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown protocol revision: got %s, want 400", resp.Status)
	}
}

// TestHTTPAuth: every token given is accepted (rotation); a missing or
// wrong one gets 401 with WWW-Authenticate; the log holds fingerprints,
// never tokens; a token too short or holding a space is refused at start.
func TestHTTPAuth(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{Tokens: []string{tokenA, tokenB, tokenA}}, 0)
	start := s.log.Find(map[string]any{"event": "start"})[0]
	if start["auth"] != true || start["tokens"] != float64(2) {
		t.Errorf("start event: auth %v, tokens %v; want true, 2", start["auth"], start["tokens"])
	}
	for _, tc := range []struct {
		name, header, wantAuth string
	}{
		{"missing", "", `Bearer realm="sqlmcp"`},
		{"not bearer", "Basic dXNlcjpwYXNz", `Bearer realm="sqlmcp"`},
		{"wrong", "Bearer " + tokenA + "x", `Bearer realm="sqlmcp", error="invalid_token"`},
		{"prefix of a token", "Bearer " + tokenA[:20], `Bearer realm="sqlmcp", error="invalid_token"`},
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
	for _, tok := range []string{tokenA, tokenB} {
		cs := connect(t, s.base+"/mcp", httpClient(t, tok, nil), "")
		if text, isErr := callText(t, cs, "list_tables", nil); isErr {
			t.Errorf("token %s: %s", serve.Fingerprint(tok), text)
		}
		s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "list_tables", "token_fingerprint": serve.Fingerprint(tok)})
	}
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": "invalid"})
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": "missing"})
	for _, tok := range []string{tokenA, tokenB, tokenA[:20]} {
		if strings.Contains(s.log.String(), tok) {
			t.Errorf("the log holds a token (%s)", serve.Fingerprint(tok))
		}
	}
	t.Run("bad tokens at start", func(t *testing.T) {
		srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
		for tok, want := range map[string]string{"tooshort": "has 8 characters; use at least 16", "0123456789 abcdefgh": "holds a space"} {
			err := serve.HTTP(t.Context(), srv, &serve.HTTPOptions{Addr: "127.0.0.1:0", Tokens: []string{tok}})
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), tok) {
				t.Errorf("token %s: got %v, want an error saying %q without the token", serve.Fingerprint(tok), err, want)
			}
		}
	})
}

// TestHTTPNoAuthElsewhere: serving every interface without tokens is
// said loudly, and the start event names the address as given (0.0.0.0,
// not the [::] the listener reports).
func TestHTTPNoAuthElsewhere(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{Addr: "0.0.0.0:0"}, 0)
	s.log.Wait(t, time.Second, map[string]any{"event": "insecure_no_auth", "level": "warn"})
	ev := s.log.Find(map[string]any{"event": "start"})[0]
	if !strings.HasPrefix(fmt.Sprint(ev["url"]), "http://0.0.0.0:") || !strings.HasPrefix(fmt.Sprint(ev["address"]), "0.0.0.0:") {
		t.Errorf("start event: url %v, address %v; want 0.0.0.0 as given", ev["url"], ev["address"])
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	cs := connect(t, "http://127.0.0.1:"+port+"/mcp", httpClient(t, "", nil), "")
	if text, isErr := callText(t, cs, "list_tables", nil); isErr {
		t.Error(text)
	}
}

// TestHTTPHostAndOrigin: DNS-rebinding protection. A Host or an Origin
// that is not on the list gets 403; no Origin is fine; Hosts and Origins
// extend the list, even on a loopback address (where the go-sdk's own
// check, which sqlmcp's replaces, would refuse a non-loopback Host).
func TestHTTPHostAndOrigin(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{
		Origins: []string{"https://App.Example.com"}, Hosts: []string{"mcp.internal", "proxy.internal:9000"},
	}, 0)
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
	t.Run("bad entries at start", func(t *testing.T) {
		srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
		for _, opts := range []serve.HTTPOptions{{Origins: []string{"https://app.example.com/x"}}, {Hosts: []string{"a/b"}}} {
			opts.Addr = "127.0.0.1:0"
			if err := serve.HTTP(t.Context(), srv, &opts); err == nil {
				t.Errorf("%+v: served", opts)
			}
		}
	})
}

// TestHTTPBodyLimit: a body over MaxBodyBytes gets 413, with or without a
// Content-Length.
func TestHTTPBodyLimit(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{MaxBodyBytes: 4096}, 0)
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
	if resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", nil, initialize2025); resp.StatusCode != http.StatusOK {
		t.Errorf("a small body: got %s", resp.Status)
	}
}

// TestHTTPBusy: with one turn and a runaway holding it, calls wait up to
// the query timeout and then get the busy tool error; none hangs. Three
// runaways: whichever gets the turn first holds it for the timeout; the
// next holds it for a whole timeout more, longer than the third waits.
func TestHTTPBusy(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: time.Second}})
	s := startHTTP(t, db, serve.HTTPOptions{}, 1)
	cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
	var wg sync.WaitGroup
	texts := make([]string, 3)
	for i := range texts {
		wg.Go(func() {
			text, _, err := mcptest.Text(t, cs, "run_query", map[string]any{"sql": sqliteRunaway})
			texts[i] = text + fmt.Sprint(err)
		})
		if i == 0 {
			s.log.Wait(t, 5*time.Second, map[string]any{"event": "mcp_request", "tool": "run_query"})
		}
	}
	wg.Wait()
	busy, timeout := 0, 0
	for _, text := range texts {
		switch {
		// The runaway holding the turn times out as the waiter gives up:
		// the waiter may see it running still, or just ended.
		case busyText.MatchString(text):
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
	// Each call's event is written before its answer; the wait only
	// spares the check the order in which the answers were read.
	n := 0
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n = len(s.log.Find(map[string]any{"event": "tool_call", "verdict": "busy"})); n == busy || time.Now().After(deadline) {
			break
		}
	}
	if n != busy {
		t.Errorf("%d busy calls in the audit log, want %d: %s", n, busy, s.log.Find(map[string]any{"event": "tool_call"}))
	}
}

// busyText is the refusal of a call that waited its timeout for a turn.
var busyText = regexp.MustCompile(`busy: [01] queries are running and this call waited 1s for a turn; retry later`)

// engines are the databases the cancellation tests run on: the SQLite
// fixture, and PostgreSQL when SQLMCP_TEST_POSTGRES is set.
func engines(t *testing.T, timeout time.Duration) []struct {
	name, dsn, runaway string
	db                 *source.DB
} {
	type engine = struct {
		name, dsn, runaway string
		db                 *source.DB
	}
	opts := &source.Options{Limits: sqlmcp.Limits{Timeout: timeout}}
	path := dbtest.SQLiteFile(t)
	out := []engine{{"sqlite", path, sqliteRunaway, dbtest.Open(t, path, opts)}}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		dsn := dbtest.PostgresDSN(t)
		out = append(out, engine{"postgres", dsn, postgresRunaway, dbtest.Open(t, dsn, opts)})
	}
	return out
}

// TestHTTPCancelOnDisconnect: a client that gives up on a call stops its
// query inside the engine, whatever its protocol revision (the SDK ties
// 2026-07-28 handlers to the request; the middleware ties the older ones),
// on both engines.
func TestHTTPCancelOnDisconnect(t *testing.T) {
	for _, e := range engines(t, time.Minute) {
		t.Run(e.name, func(t *testing.T) {
			s := startHTTP(t, e.db, serve.HTTPOptions{}, 0)
			for _, version := range []string{"2026-07-28", "2025-06-18", "plain 2025-06-18"} {
				t.Run(version, func(t *testing.T) {
					before := len(s.log.Find(map[string]any{"event": "tool_call", "verdict": "cancelled"}))
					seen := len(s.log.Find(map[string]any{"event": "mcp_request", "tool": "run_query"}))
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
							req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/mcp", strings.NewReader(runawayCall(e.runaway)))
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
					s.log.WaitCount(t, 10*time.Second, map[string]any{"event": "mcp_request", "tool": "run_query"}, seen+1)
					if e.name == "postgres" {
						waitActive(t, e.dsn, func(n int) bool { return n > 0 })
					}
					// The runaway blocks nobody else.
					other := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
					if text, isErr := callText(t, other, "describe_table", map[string]any{"table": "order"}); isErr {
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
					// Well under the minute's timeout: only the
					// cancellation can have ended the call.
					s.log.WaitCount(t, 10*time.Second, map[string]any{"event": "tool_call", "verdict": "cancelled"}, before+1)
					if e.name == "postgres" {
						waitActive(t, e.dsn, func(n int) bool { return n == 0 })
					}
					t.Logf("stopped %s after the client left", time.Since(start).Round(time.Millisecond))
				})
			}
		})
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

// TestHTTPShutdown: when ctx ends, a call in flight finishes within the
// grace; one still running past the grace is cancelled, its query
// stopped; either way HTTP returns nil.
func TestHTTPShutdown(t *testing.T) {
	t.Run("call finishes within the grace", func(t *testing.T) {
		s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{ShutdownGrace: 20 * time.Second}, 0)
		cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
		// About a second of work on this machine; the grace is far longer.
		const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 5000000) SELECT count(*) AS n FROM c"
		result := make(chan string, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": slow}})
			if err != nil {
				result <- err.Error()
				return
			}
			result <- fmt.Sprint(res.Content[0].(*mcp.TextContent).Text, res.IsError)
		}()
		s.log.Wait(t, 5*time.Second, map[string]any{"event": "tool_start", "tool": "run_query"})
		if err := s.stop(t); err != nil {
			t.Errorf("HTTP: %v, want nil", err)
		}
		if text := <-result; !strings.Contains(text, "5000000") || !strings.HasSuffix(text, "false") {
			t.Errorf("the call in flight: got %q, want its count", text)
		}
		stopping := s.log.Index(map[string]any{"event": "stopping"})
		call := s.log.Index(map[string]any{"event": "tool_call", "verdict": "ok"})
		if stopping < 0 || call < stopping {
			t.Errorf("the call ended (event %d) before the shutdown began (event %d): nothing was in flight", call, stopping)
		}
		if s.log.Index(map[string]any{"event": "cancel_in_flight"}) >= 0 {
			t.Error("a call was cancelled within the grace")
		}
	})
	t.Run("call past the grace is cancelled", func(t *testing.T) {
		for _, e := range engines(t, time.Minute) {
			t.Run(e.name, func(t *testing.T) {
				s := startHTTP(t, e.db, serve.HTTPOptions{ShutdownGrace: 200 * time.Millisecond}, 0)
				cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "2025-06-18")
				go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": e.runaway}})
				s.log.Wait(t, 5*time.Second, map[string]any{"event": "tool_start", "tool": "run_query"})
				if e.name == "postgres" {
					waitActive(t, e.dsn, func(n int) bool { return n > 0 })
				}
				start := time.Now()
				if err := s.stop(t); err != nil {
					t.Errorf("HTTP: %v, want nil", err)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("shutdown took %s: the query ran on", d)
				}
				for _, want := range []map[string]any{
					{"event": "stopping"}, {"event": "cancel_in_flight"}, {"event": "tool_call", "verdict": "cancelled"}, {"event": "stop"},
				} {
					if s.log.Index(want) < 0 {
						t.Errorf("no event like %v in the log:\n%s", want, s.log)
					}
				}
				if s.log.Index(map[string]any{"event": "tool_call"}) < s.log.Index(map[string]any{"event": "cancel_in_flight"}) {
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
	a := startHTTP(t, dbtest.Open(t, path, nil), serve.HTTPOptions{}, 0)
	b := startHTTP(t, dbtest.Open(t, path, nil), serve.HTTPOptions{}, 0)
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			rr := &roundRobin{hosts: []string{strings.TrimPrefix(a.base, "http://"), strings.TrimPrefix(b.base, "http://")}, base: tr}
			cs := connect(t, a.base+"/mcp", &http.Client{Transport: rr}, version)
			for _, c := range everyTool {
				if text, isErr := callText(t, cs, c.tool, c.args); isErr || !strings.Contains(text, c.want) {
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
	for _, s := range []*testServer{a, b} {
		s.log.WaitCount(t, 10*time.Second, map[string]any{"event": "http", "mcp_method": "tools/call", "status": 200}, 3)
	}
}

// TestHTTPHealth: /healthz and /readyz answer without a token, and say
// nothing about the data; /readyz says what the readiness function says.
func TestHTTPHealth(t *testing.T) {
	var note atomic.Value
	note.Store("")
	var fail atomic.Bool
	ready := func(ctx context.Context) (string, error) {
		if fail.Load() {
			return "", errors.New("the database did not answer")
		}
		return note.Load().(string), nil
	}
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{Tokens: []string{tokenB}, Ready: ready}, 0)
	hc := httpClient(t, "", nil)
	get := func(path string) (int, string) {
		resp, err := hc.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(body)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(path); code != http.StatusOK || body != "ok\n" {
			t.Errorf("%s: got %d %q, want 200 ok", path, code, body)
		}
	}
	note.Store("1 queries the database did not stop are still running")
	if code, body := get("/readyz"); code != http.StatusOK || body != "ok: 1 queries the database did not stop are still running\n" {
		t.Errorf("with a note: got %d %q", code, body)
	}
	fail.Store(true)
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || body != "not ready: the database did not answer\n" {
		t.Errorf("not ready: got %d %q, want 503", code, body)
	}
	if resp, err := hc.Post(s.base+"/healthz", "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz: got %v %v, want 405", resp.Status, err)
	}
	if code, _ := get("/mcp"); code != http.StatusUnauthorized {
		t.Errorf("GET /mcp without a token: got %d, want 401", code)
	}
}

// TestHTTPTLS serves HTTPS with a self-signed certificate made here.
func TestHTTPTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}}, 0)
	if !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("url %s, want https", s.base)
	}
	cs := connect(t, s.base+"/mcp", httpClient(t, "", &tls.Config{RootCAs: pool}), "")
	if text, isErr := callText(t, cs, "run_query", map[string]any{"sql": "SELECT 42 AS answer"}); isErr || !strings.Contains(text, "42") {
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
	if ev := s.log.Find(map[string]any{"event": "start"})[0]; ev["tls"] != true {
		t.Errorf("start event: tls %v", ev["tls"])
	}
}

// selfSigned makes a self-signed certificate for 127.0.0.1 and localhost
// and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
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
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
}

// TestHTTPListenError: an address in use is an error wrapping the
// *net.OpError, for the caller to call a usage mistake.
func TestHTTPListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
	err = serve.HTTP(t.Context(), srv, &serve.HTTPOptions{Addr: ln.Addr().String()})
	if !errors.As(err, new(*net.OpError)) || !strings.Contains(err.Error(), "listening on "+ln.Addr().String()) {
		t.Errorf("got %v, want a listen error", err)
	}
}

// TestHTTPBatchLimit: a JSON-RPC batch (protocol 2025-03-26) of more
// messages than the limit is refused before any runs, in words that say
// how many may be sent; a small one is answered.
func TestHTTPBatchLimit(t *testing.T) {
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{}, 0)
	hc := httpClient(t, "", nil)
	batch := func(n int) (int, string) {
		calls := make([]string, n)
		for i := range calls {
			calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/mcp", strings.NewReader("["+strings.Join(calls, ",")+"]"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := batch(17); code != http.StatusBadRequest || !strings.Contains(body, "at most 16") {
		t.Errorf("a batch of 17: %d %q, want 400 saying at most 16", code, body)
	}
	if code, body := batch(2); code != http.StatusOK || strings.Count(body, `"id":`) != 2 {
		t.Errorf("a batch of 2: %d %q, want both answered", code, body)
	}
}

// TestHTTPStalledReader: a client that sends a batch whose answers are
// tens of megabytes, more than the sockets' buffers hold, and stops
// reading is dropped once a write has waited the stall limit, so the
// answers it would have held are freed; a client that reads gets them
// whole.
func TestHTTPStalledReader(t *testing.T) {
	defer serve.SetWriteStall(300 * time.Millisecond)()
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{MaxBytes: 8 << 20, MaxCellBytes: 64 << 10}})
	s := startHTTP(t, db, serve.HTTPOptions{}, 0)
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":` +
		`"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT hex(randomblob(30000)) FROM n"}}}`
	calls := make([]string, 4)
	for i := range calls {
		calls[i] = fmt.Sprintf(call, i+1)
	}
	body := "[" + strings.Join(calls, ",") + "]"
	addr := strings.TrimPrefix(s.base, "http://")
	request := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-03-26\r\n" +
		fmt.Sprintf("Content-Length: %d\r\nConnection: close\r\n\r\n", len(body)) + body
	send := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatal(err)
		}
		return c
	}
	posted := map[string]any{"event": "http", "path": "/mcp", "method": "POST"}
	c := send()
	c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	whole, _ := io.Copy(io.Discard, c)
	c.Close()
	if whole < 32<<20 {
		t.Fatalf("a reading client got %d bytes; want the batch's tens of megabytes", whole)
	}
	// The stalled client reads nothing: its request must end all the same,
	// with less of the answer written than there was.
	before := len(s.log.Find(posted))
	stalled := send()
	defer stalled.Close()
	evs := s.log.WaitCount(t, 2*time.Minute, posted, before+1)
	ev := evs[len(evs)-1]
	if sent, _ := ev["bytes"].(float64); int64(sent) >= whole {
		t.Errorf("the request of a client that stopped reading ended with all %d bytes written; want it dropped", int64(sent))
	}
}

// TestHTTPRequestBound: past the requests an HTTP server serves at once,
// in all or of one caller, a request gets 503 with Retry-After at once,
// however many connections bring them; a caller at its bound leaves the
// others room; once the requests end, requests are served again.
func TestHTTPRequestBound(t *testing.T) {
	defer serve.SetMaxRequests(3, 2)()
	tokens := map[string]string{"a": "a-token-0123456789abcdef", "b": "b-token-0123456789abcdef", "c": "c-token-0123456789abcdef"}
	var lines []string
	for name, tok := range tokens {
		lines = append(lines, name+": "+tok)
	}
	s := startHTTP(t, dbtest.SQLite(t, nil), serve.HTTPOptions{Tokens: lines}, 0)
	hc := httpClient(t, "", nil)
	ctx, cancel := context.WithCancel(t.Context())
	var running sync.WaitGroup
	// A runaway call, sent again while the caller's own pings take its
	// place, until it is served.
	runaway := func(caller string) {
		running.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/mcp", strings.NewReader(runawayCall(sqliteRunaway)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+tokens[caller])
				resp, err := hc.Do(req)
				if err != nil {
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusServiceUnavailable {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	ping := func(caller string) (int, string, string) {
		resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", map[string]string{"Authorization": "Bearer " + tokens[caller]}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.Header.Get("Retry-After")
	}
	// Requests take their places as they arrive: wait for it.
	deadline := time.Now().Add(time.Minute)
	until := func(caller string, served bool) (int, string, string) {
		code, body, retry := ping(caller)
		for (code == http.StatusOK) != served && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			code, body, retry = ping(caller)
		}
		return code, body, retry
	}
	runaway("a")
	runaway("a")
	if code, body, retry := until("a", false); code != http.StatusServiceUnavailable || retry == "" || !strings.Contains(body, "busy: this caller has 2 requests") {
		t.Errorf("with 2 of its requests served, a third of the caller's got %d %q (Retry-After %q), want 503 saying busy", code, body, retry)
	}
	if code, body, _ := ping("b"); code != http.StatusOK {
		t.Errorf("with one caller at its bound, another's request got %d %q, want it served", code, body)
	}
	runaway("b")
	if code, body, retry := until("c", false); code != http.StatusServiceUnavailable || retry == "" || !strings.Contains(body, "busy: this server is serving 3 requests") {
		t.Errorf("with 3 requests served, another caller's got %d %q (Retry-After %q), want 503 saying busy", code, body, retry)
	}
	cancel()
	running.Wait()
	for _, caller := range []string{"a", "c"} {
		if code, body, _ := until(caller, true); code != http.StatusOK {
			t.Errorf("once the calls ended, %s's request got %d %q, want it served", caller, code, body)
		}
	}
}
