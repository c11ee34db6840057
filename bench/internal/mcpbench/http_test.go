package mcpbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The HTTP client reads replies as JSON, as an event stream (chunked, as
// Node servers send it) and as errors, reuses its connections, and sends a
// request again on a new connection when the server closed an idle one.
func TestHTTPClient(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int64           `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || r.Header.Get("MCP-Protocol-Version") != ProtocolVersion ||
			r.Header.Get("Authorization") != "Bearer tok" || r.Method != http.MethodPost || r.URL.Path != "/mcp" {
			http.Error(w, "bad request: "+string(body), http.StatusBadRequest)
			return
		}
		switch req.Method {
		case "json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"echo":%s}}`, req.ID, req.Params)
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[],\"isError\":true}}\n\n", req.ID)
			w.(http.Flusher).Flush() // chunked from here on
		case "close":
			w.Header().Set("Connection", "close")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"no such method"}}`, req.ID)
		default:
			http.Error(w, "no", http.StatusTeapot)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	h := NewHTTP(srv.URL+"/mcp", 2)
	h.Token = "tok"
	ctx := context.Background()
	for i := range 3 {
		r, err := h.Call(ctx, "json", map[string]any{"i": i})
		if err != nil || string(r.Result) != fmt.Sprintf(`{"echo":{"i":%d}}`, i) {
			t.Fatalf("json call %d: %s, %v", i, r.Result, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for three calls in turn, want 1", n)
	}
	r, err := h.Call(ctx, "sse", nil)
	if err != nil || r.ToolError() == nil {
		t.Errorf("event stream: %s, %v; want a tool error", r.Result, err)
	}
	r, err = h.Call(ctx, "close", nil)
	if err != nil || r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("Connection: close: %+v, %v; want the JSON-RPC error", r, err)
	}
	var se *StatusError
	if _, err := h.Call(ctx, "other", nil); !errors.As(err, &se) || se.Code != http.StatusTeapot {
		t.Errorf("status 418: %v, want a StatusError", err)
	}
	// The server closes the idle connection: the next call goes out again
	// on a new one.
	if _, err := h.Call(ctx, "json", 6); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections()
	time.Sleep(10 * time.Millisecond)
	before := conns.Load()
	if r, err := h.Call(ctx, "json", 7); err != nil || !strings.Contains(string(r.Result), "7") {
		t.Fatalf("after the server closed its connections: %s, %v", r.Result, err)
	}
	if conns.Load() != before+1 {
		t.Errorf("%d new connections, want 1", conns.Load()-before)
	}
	// A context that ends stops a call waiting for its reply.
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // then the server hears the client leave
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
		}
	}))
	defer slow.Close()
	t0 := time.Now()
	if _, err := NewHTTP(slow.URL+"/mcp", 1).Call(cctx, "json", nil); err == nil || time.Since(t0) > 500*time.Millisecond {
		t.Errorf("a call past its context: %v after %v, want an error at once", err, time.Since(t0))
	}
}
