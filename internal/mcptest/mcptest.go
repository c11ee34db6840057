// Package mcptest holds what tests of an MCP server share: a go-sdk client
// connected to a server in memory, and a log sink to wait on the server's
// JSON events.
package mcptest

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect serves srv over in-memory transports and returns a go-sdk
// client session to it; both sessions close when the test ends.
func Connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	return ConnectClient(t, srv, nil)
}

// ConnectClient is Connect with the client to connect; nil means a plain
// one.
func ConnectClient(t testing.TB, srv *mcp.Server, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	if client == nil {
		client = mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	}
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Text calls tool with args and returns the text of its result and whether
// it is an error; a protocol or transport error is returned as err.
func Text(t testing.TB, cs *mcp.ClientSession, tool string, args any) (text string, isErr bool, err error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// dataMarker is a marker of database text in a tool's result:
// <data-NONCE> or </data-NONCE>.
var dataMarker = regexp.MustCompile(`<(/?)data-[0-9a-f]{8}>`)

// Unmark returns text with the nonce of every marker of database text
// written ID (<data-ID>, </data-ID>), so that a test compares a result
// whatever nonce it holds.
func Unmark(text string) string { return dataMarker.ReplaceAllString(text, "<${1}data-ID>") }

// Log collects the JSON lines a server logs (zerolog writes one whole
// line per Write), for tests to find and wait on. It is safe for
// concurrent use.
type Log struct {
	mu      sync.Mutex
	raw     bytes.Buffer
	events  []map[string]any
	changed chan struct{} // closed, and replaced, on every write
}

func (l *Log) Write(p []byte) (int, error) {
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
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
	return len(p), nil
}

// String is everything logged.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.raw.String()
}

// Find returns the events whose fields include every key and value of
// want ("*" matches any value).
func (l *Log) Find(want map[string]any) []map[string]any {
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

// Index is the position of the first event matching want, or -1.
func (l *Log) Index(want map[string]any) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, ev := range l.events {
		if matches(ev, want) {
			return i
		}
	}
	return -1
}

// next returns the channel closed at the next write.
func (l *Log) next() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.changed
}

// Wait returns the first event matching want, waiting up to d for it.
func (l *Log) Wait(t testing.TB, d time.Duration, want map[string]any) map[string]any {
	t.Helper()
	return l.WaitCount(t, d, want, 1)[0]
}

// WaitCount waits up to d until n events match want, and returns them.
func (l *Log) WaitCount(t testing.TB, d time.Duration, want map[string]any, n int) []map[string]any {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		changed := l.next()
		if evs := l.Find(want); len(evs) >= n {
			return evs
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("fewer than %d log events like %v within %s; the log:\n%s", n, want, d, l)
		}
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

// HTTPClient returns a client that sends token (if any) over a transport
// of its own, so tests do not share connections.
func HTTPClient(t testing.TB, token string, tlsConfig *tls.Config) *http.Client {
	tr := &http.Transport{TLSClientConfig: tlsConfig}
	t.Cleanup(tr.CloseIdleConnections)
	var rt http.RoundTripper = tr
	if token != "" {
		rt = bearer{token, tr}
	}
	return &http.Client{Transport: rt}
}

// ConnectHTTP connects the go-sdk's streamable HTTP client to endpoint
// through hc, asking for protocol version (the latest when ""), and closes
// the session when the test ends.
func ConnectHTTP(t testing.TB, endpoint string, hc *http.Client, version string) *mcp.ClientSession {
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
