package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
)

// countedCalls counts the tools/call requests answered directly.
type countedCalls struct {
	serve.Calls
	n atomic.Int64
}

func (c *countedCalls) Handler(name string) mcp.ToolHandler {
	h := c.Calls.Handler(name)
	if h != nil {
		c.n.Add(1)
	}
	return h
}

// directCases are tools/call params, each answered the same by the SDK's
// dispatch and by the transports' direct path: every tool, a refusal, an
// engine error, bad arguments, an unknown tool, and params the direct path
// leaves to the SDK (_meta with a progress token, a key in another case, no
// arguments, null arguments).
var directCases = []string{
	`{"name":"list_tables","arguments":{}}`,
	`{"name":"describe_table","arguments":{"table":"order"}}`,
	`{"name":"search_schema","arguments":{"query":"free meal"}}`,
	`{"name":"sample_values","arguments":{"table":"products","column":"category"}}`,
	`{"name":"distinct_values","arguments":{"table":"order","column":"status"}}`,
	`{"name":"run_query","arguments":{"sql":"SELECT count(*) AS n, '<b>&' AS html FROM customers"}}`,
	`{"name":"run_query","arguments":{"sql":"DELETE FROM customers"}}`,
	`{"name":"run_query","arguments":{"sql":"SELECT nope FROM customers"}}`,
	`{"name":"run_query","arguments":{"sql":1}}`,
	`{"name":"run_query","arguments":{"sql":"SELECT 1","extra":true}}`,
	`{"name":"run_query"}`,
	`{"name":"run_query","arguments":null}`,
	`{"name":"no_such_tool","arguments":{}}`,
	`{"name":"run_query","arguments":{"sql":"SELECT 2"},"_meta":{"progressToken":"p1"}}`,
	`{"NAME":"run_query","arguments":{"sql":"SELECT 3"}}`,
	`{"name":"run_query","arguments":{"sql":"SELECT 4"},"future":1}`,
}

// elapsed is the one part of a reply that differs from run to run.
var elapsed = regexp.MustCompile(`"elapsed_ms":[0-9.e+-]+`)

func normalise(reply string) string { return elapsed.ReplaceAllString(reply, `"elapsed_ms":0`) }

// TestDirectMatchesSDK: over stdio and HTTP, every case gets the same
// reply, byte for byte but for the elapsed time, whether the tools'
// handlers answer it directly or the SDK's dispatch does; the plain ones
// went the direct way.
func TestDirectMatchesSDK(t *testing.T) {
	t.Parallel()
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		via := func(direct bool) ([]string, int64) {
			srv, calls := newServerCalls(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
			counted := &countedCalls{Calls: calls}
			var c serve.Calls
			if direct {
				c = counted
			}
			toServer, in := pipe(t)
			out, fromServer := pipe(t)
			go serve.StdioCalls(t.Context(), srv, c, toServer, fromServer, time.Second)
			r := bufio.NewReaderSize(out, 1<<20)
			send := func(line string) string {
				if _, err := io.WriteString(in, line+"\n"); err != nil {
					t.Fatal(err)
				}
				reply, err := r.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				return reply
			}
			var got []string
			// Before initialize: the SDK's refusal, on both ways.
			got = append(got, send(`{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1"}}}`))
			send(strings.SplitAfter(initializeLine, "\n")[0][:len(strings.SplitAfter(initializeLine, "\n")[0])-1])
			io.WriteString(in, strings.SplitAfter(initializeLine, "\n")[1])
			for i, p := range directCases {
				got = append(got, normalise(send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i, p))))
			}
			// A string id.
			got = append(got, normalise(send(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 5"}}}`)))
			return got, counted.n.Load()
		}
		sdk, _ := via(false)
		direct, n := via(true)
		for i := range sdk {
			if sdk[i] != direct[i] {
				t.Errorf("case %d: the SDK answers\n%s\nthe direct path\n%s", i, sdk[i], direct[i])
			}
		}
		if n < 10 {
			t.Errorf("%d calls went the direct way, want the 10 plain ones at least", n)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		db := dbtest.SQLite(t, nil)
		sdkSrv := startHTTPVia(t, db, serve.HTTPOptions{}, 0, false, nil)
		directSrv := startHTTPVia(t, db, serve.HTTPOptions{}, 0, true, nil)
		post := func(s *testServer, body string) string {
			resp, reply := rpc(t, t.Context(), http.DefaultClient, s.base+"/mcp", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, body)
			if reply == nil {
				b, _ := io.ReadAll(resp.Body)
				return fmt.Sprintf("HTTP %d: %s", resp.StatusCode, b)
			}
			b, err := json.Marshal(reply)
			if err != nil {
				t.Fatal(err)
			}
			return normalise(string(b))
		}
		for i, p := range directCases {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i, p)
			if a, b := post(sdkSrv, body), post(directSrv, body); a != b {
				t.Errorf("case %d: the SDK answers\n%s\nthe direct path\n%s", i, a, b)
			}
		}
		// The access log names the tool either way.
		for _, s := range []*testServer{sdkSrv, directSrv} {
			if evs := s.log.Find(map[string]any{"event": "http", "mcp_method": "tools/call", "tool": "describe_table"}); len(evs) == 0 {
				t.Errorf("no access-log event names the tool:\n%s", s.log)
			}
		}
	})
}

// TestDirectCancel: a client's notifications/cancelled stops a call
// answered directly, and the session goes on.
func TestDirectCancel(t *testing.T) {
	t.Parallel()
	in, r, counted := directStdio(t)
	start := time.Now()
	io.WriteString(in, runawayCall(sqliteRunaway)+"\n")
	time.Sleep(200 * time.Millisecond)
	var id struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal([]byte(runawayCall(sqliteRunaway)), &id)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(id.ID)+`,"reason":"enough"}}`+"\n")
	done := make(chan string, 1)
	go func() {
		reply, _ := r.ReadString('\n')
		done <- reply
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	select {
	case reply := <-done:
		if !strings.Contains(reply, `"isError":true`) && !strings.Contains(reply, `"error"`) {
			t.Errorf("the cancelled call's reply: %s", reply)
		}
	case <-ctx.Done():
		t.Fatalf("the cancelled call was not answered after %s", time.Since(start))
	}
	if counted.n.Load() != 1 {
		t.Errorf("%d calls went the direct way, want 1", counted.n.Load())
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 42 AS n"}}}`+"\n")
	if reply, err := r.ReadString('\n'); err != nil || !strings.Contains(reply, "42") {
		t.Errorf("after the cancel: %v %s", err, reply)
	}
}

// directStdio serves sqlmcp over pipes with direct calls counted, and
// returns the server's input and output once initialized.
func directStdio(t *testing.T) (io.Writer, *bufio.Reader, *countedCalls) {
	srv, calls := newServerCalls(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
	counted := &countedCalls{Calls: calls}
	toServer, in := pipe(t)
	out, fromServer := pipe(t)
	go serve.StdioCalls(t.Context(), srv, counted, toServer, fromServer, time.Second)
	r := bufio.NewReaderSize(out, 1<<20)
	io.WriteString(in, strings.SplitAfter(initializeLine, "\n")[0])
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, strings.SplitAfter(initializeLine, "\n")[1])
	return in, r, counted
}

// TestDirectReadsOn checks that a call sent while a long one runs on the
// goroutine that read it is read and answered meanwhile: the read-ahead
// watch hands the reading on.
func TestDirectReadsOn(t *testing.T) {
	t.Parallel()
	in, r, counted := directStdio(t)
	io.WriteString(in, runawayCall(sqliteRunaway)+"\n")
	time.Sleep(100 * time.Millisecond) // the runaway is read, and running, alone
	io.WriteString(in, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 42 AS n"}}}`+"\n")
	first := make(chan string, 1)
	go func() {
		reply, _ := r.ReadString('\n')
		first <- reply
	}()
	select {
	case reply := <-first:
		if !strings.Contains(reply, `"id":9`) || !strings.Contains(reply, "42") {
			t.Fatalf("the first reply is not the short call's: %s", reply)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the short call was not answered while the long one ran")
	}
	if counted.n.Load() != 2 {
		t.Errorf("%d calls went the direct way, want 2", counted.n.Load())
	}
	var id struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal([]byte(runawayCall(sqliteRunaway)), &id)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+string(id.ID)+`}}`+"\n")
	if _, err := r.ReadString('\n'); err != nil {
		t.Errorf("the runaway's reply: %v", err)
	}
}
