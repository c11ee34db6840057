package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

// Test tokens; each at least 16 characters.
const (
	tokenA = "file-token-0123456789abcdef"
	tokenB = "env-token-fedcba9876543210"
)

// Runaway queries: they run until something stops them.
const (
	sqliteRunaway   = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1e12) SELECT count(*) FROM c"
	postgresRunaway = "SELECT count(*) FROM generate_series(1, 1e12)"
)

// newServer is the real sqlmcp server over db, logging to log.
func newServer(t testing.TB, db *source.DB, log *mcptest.Log, maxConcurrency int) *mcp.Server {
	srv, _ := newServerCalls(t, db, log, maxConcurrency)
	return srv
}

// newServerCalls is newServer with its tools' handlers, for the
// transports to answer tools/call without the SDK's dispatch.
func newServerCalls(t testing.TB, db *source.DB, log *mcptest.Log, maxConcurrency int) (*mcp.Server, *tools.Calls) {
	t.Helper()
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := new(tools.Calls)
	return tools.NewServer(db, cat, &tools.Options{Logger: zerolog.New(log), MaxConcurrency: maxConcurrency, Calls: calls}), calls
}

// testServer is serve.HTTP running in the test.
type testServer struct {
	base   string // scheme://host:port
	log    *mcptest.Log
	cancel context.CancelFunc // ends HTTP's ctx: SIGTERM
	done   chan error         // HTTP's result
}

// startHTTP serves db's tools with opts, on 127.0.0.1:0 unless opts say
// where, learning the port from the start event. It stops when the test
// ends.
func startHTTP(t testing.TB, db *source.DB, opts serve.HTTPOptions, maxConcurrency int) *testServer {
	t.Helper()
	return startHTTPVia(t, db, opts, maxConcurrency, true, nil)
}

// startHTTPVia is startHTTP with tools/call answered by the tools'
// handlers directly (as sqlmcp serves) or, direct false, by the SDK, and
// setup, when set, given the server before it serves.
func startHTTPVia(t testing.TB, db *source.DB, opts serve.HTTPOptions, maxConcurrency int, direct bool, setup func(*mcp.Server)) *testServer {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	s := &testServer{log: &mcptest.Log{}, done: make(chan error, 1)}
	opts.Logger = zerolog.New(s.log).Level(zerolog.DebugLevel)
	if opts.LogOutput == nil {
		opts.LogOutput = s.log // as sqlmcp serves: a request's lines together
	}
	srv, calls := newServerCalls(t, db, s.log, maxConcurrency)
	if direct {
		opts.Calls = calls
	}
	if setup != nil {
		setup(srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.done <- serve.HTTP(ctx, srv, &opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("the server did not stop")
		}
	})
	started := make(chan map[string]any, 1)
	go func() {
		defer close(started)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if evs := s.log.Find(map[string]any{"event": "start", "transport": "http"}); len(evs) > 0 {
				started <- evs[0]
				return
			}
		}
	}()
	select {
	case ev, ok := <-started:
		if !ok {
			t.Fatalf("no start event:\n%s", s.log)
		}
		s.base = strings.TrimSuffix(ev["url"].(string), "/mcp")
		return s
	case err := <-s.done:
		t.Fatalf("HTTP returned before serving: %v\n%s", err, s.log)
	}
	return nil
}

// stop is SIGTERM: it ends HTTP's ctx and returns its error.
func (s *testServer) stop(t testing.TB) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("HTTP did not return after its context ended")
		return nil
	}
}

// The go-sdk's streamable HTTP client, and an HTTP client of its own for
// each test.
var (
	httpClient = mcptest.HTTPClient
	connect    = mcptest.ConnectHTTP
)

// callText calls tool and returns the text of its result and whether it
// is an error; a protocol or transport error fails the test.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	text, isErr, err := mcptest.Text(t, cs, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return text, isErr
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
	{"run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}, "\nn\n4\n</data-"},
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

// runawayCall is a tools/call of sql as a plain 2025-06-18 client posts it.
func runawayCall(sql string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":%q}}}`, sql)
}
