package serve

import (
	"context"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessRevision is the first protocol revision whose requests carry
// their own session state (_meta), which the SDK's handler reads.
const statelessRevision = "2026-07-28"

// quickMethods are the requests answered without the SDK's streamable
// handler: the ones a client sends over and over.
var quickMethods = map[string]bool{"tools/call": true, "tools/list": true, "ping": true}

// quickPOST answers a POST that holds one request of quickMethods, from a
// client of a protocol revision before statelessRevision, through a
// one-request connection of its own: the body is decoded once, with the
// standard library. The SDK's stateless handler decodes it four times more
// (see UPSTREAM.md), and nothing else differs: srv handles the request in
// a session that starts initialized, as the SDK's handler makes it, and the
// reply is JSON, which the streamable HTTP transport allows. Anything else
// (initialize, notifications, batches, 2026-07-28 requests, GET, DELETE)
// goes to next, the SDK's handler.
func (s *httpServer) quickPOST(srv *mcp.Server, calls Calls, next http.Handler) http.Handler {
	supported := map[string]bool{"": true}
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < statelessRevision {
			supported[v] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version := r.Header.Get("Mcp-Protocol-Version")
		if r.Method != http.MethodPost || !supported[version] || !acceptsBoth(r) {
			next.ServeHTTP(w, r)
			return
		}
		if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body) // readBody has it in memory
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		req, ok := quickRequest(body)
		if !ok {
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			next.ServeHTTP(w, r)
			return
		}
		if h, params := directCall(calls, req); h != nil {
			s.answerDirect(w, r, h, req, params)
			return
		}
		// The headers, as the SDK's handler hands them on (a traceparent).
		req.Extra = &mcp.RequestExtra{Header: r.Header}
		if version == "" {
			version = "2025-03-26" // what the SDK assumes without the header
		}
		c := &oneShot{req: req, replied: make(chan struct{}), closed: make(chan struct{})}
		ss, err := srv.Connect(r.Context(), c, &mcp.ServerSessionOptions{State: &mcp.ServerSessionState{
			InitializeParams:  &mcp.InitializeParams{ProtocolVersion: version},
			InitializedParams: &mcp.InitializedParams{},
			LogLevel:          "info",
		}})
		if err != nil {
			http.Error(w, "starting the session: "+err.Error(), http.StatusInternalServerError)
			return
		}
		defer ss.Close()
		select {
		case <-c.replied:
		case <-r.Context().Done():
			return
		}
		buf := getBuffer()
		defer putBuffer(buf)
		if err := encode(buf, c.reply); err != nil {
			http.Error(w, "encoding the reply: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(buf.Bytes())
	})
}

// acceptsBoth reports whether the client accepts JSON and event streams,
// as the streamable HTTP transport requires of it.
func acceptsBoth(r *http.Request) bool {
	var jsonOK, streamOK bool
	for _, h := range r.Header.Values("Accept") {
		for _, part := range strings.Split(h, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			switch strings.TrimSpace(mt) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// quickRequest decodes body as one request of quickMethods.
func quickRequest(body []byte) (*jsonrpc.Request, bool) {
	if b := strings.TrimSpace(string(body)); b == "" || b[0] != '{' {
		return nil, false
	}
	m, err := decodeMessage(body)
	if err != nil {
		return nil, false
	}
	req, ok := m.(*jsonrpc.Request)
	// A tools/call without params is the SDK's to refuse.
	if !ok || !req.IsCall() || !quickMethods[req.Method] || req.Method == "tools/call" && len(req.Params) == 0 {
		return nil, false
	}
	return req, true
}

// oneShot is an mcp.Transport and its mcp.Connection for one request: Read
// returns the request, then waits for its reply before it says the input
// has ended (so the session does not drop the reply); Write keeps the
// reply. Other messages the server writes, which a stateless exchange has
// nowhere to send, are dropped.
type oneShot struct {
	req     *jsonrpc.Request
	replied chan struct{}
	closed  chan struct{}

	mu      sync.Mutex
	read    bool
	reply   *jsonrpc.Response
	onceRep sync.Once
	onceCl  sync.Once
}

func (c *oneShot) Connect(context.Context) (mcp.Connection, error) { return c, nil }
func (c *oneShot) SessionID() string                               { return "" }

func (c *oneShot) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	first := !c.read
	c.read = true
	c.mu.Unlock()
	if first {
		return c.req, nil
	}
	select {
	case <-c.replied:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
	}
	return nil, io.EOF
}

func (c *oneShot) Write(_ context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.ID == c.req.ID {
		c.onceRep.Do(func() {
			c.reply = r
			close(c.replied)
		})
	}
	return nil
}

func (c *oneShot) Close() error {
	c.onceCl.Do(func() { close(c.closed) })
	return nil
}

// answerDirect answers a plain tools/call with its handler (see Calls),
// noting it for the access log and tying it to the request as
// mcpMiddleware does for the SDK's path.
func (s *httpServer) answerDirect(w http.ResponseWriter, r *http.Request, h mcp.ToolHandler, req *jsonrpc.Request, params *mcp.CallToolParamsRaw) {
	ctx, done := s.noteCall(r.Context(), req.Method, params.Name)
	reply := answer(ctx, h, req.ID, params)
	done()
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encode(buf, reply); err != nil {
		http.Error(w, "encoding the reply: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}
