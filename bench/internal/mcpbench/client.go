package mcpbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProtocolVersion is the MCP version the clients ask for.
const ProtocolVersion = "2025-06-18"

// Reply is one JSON-RPC reply: the result or the error, and its size.
type Reply struct {
	Result json.RawMessage
	Error  *RPCError
	Bytes  int
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// ToolError returns nil when the reply is a tool result without isError,
// else an error with the server's message.
func (r Reply) ToolError() error {
	if r.Error != nil {
		return r.Error
	}
	if !bytes.Contains(r.Result, []byte(`"isError"`)) {
		return nil // the common case, without a second decoding
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return fmt.Errorf("a result that is not a tool result: %v", err)
	}
	if !res.IsError {
		return nil
	}
	msg := "isError without a message"
	if len(res.Content) > 0 {
		msg = res.Content[0].Text
	}
	return &ToolError{Message: msg}
}

// ToolError is a tool result with isError set: the tool's own refusal or
// failure, not the protocol's.
type ToolError struct{ Message string }

func (e *ToolError) Error() string { return e.Message }

// CallParams are the params of tools/call.
func CallParams(tool string, args map[string]any) any {
	return callParams{Name: tool, Arguments: args}
}

type callParams struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

type rpcMessage struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *RPCError        `json:"error,omitempty"`
}

// request is a JSON-RPC request, or a notification for id 0.
func request(id int64, method string, params any) ([]byte, error) {
	return json.Marshal(rpcRequest{Version: "2.0", ID: id, Method: method, Params: params})
}

type rpcRequest struct {
	Version string `json:"jsonrpc"`
	ID      int64  `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func initParams() map[string]any {
	return map[string]any{"protocolVersion": ProtocolVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "sqlmcp-bench", "version": "0.1.0"}}
}

// Stdio is an MCP client of a server it spawned, over the server's stdin
// and stdout (one JSON message a line). Calls may be in flight at once:
// a reader hands each reply to the call with its id.
type Stdio struct {
	Cmd     *exec.Cmd
	InitMs  float64 // spawn to the initialize reply
	in      io.WriteCloser
	wmu     sync.Mutex
	next    atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan Reply
	done    chan struct{}
	err     error
}

// StartStdio spawns argv with its stderr going to stderr (a file, or nil
// for none) through a pipe, as MCP clients read a server's log, and
// initializes an MCP session.
func StartStdio(ctx context.Context, argv []string, env []string, stderr io.Writer) (*Stdio, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if stderr != nil {
		cmd.Stderr = struct{ io.Writer }{stderr} // not an *os.File: exec makes a pipe and copies it
	}
	cmd.SysProcAttr = ChildAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	s := &Stdio{Cmd: cmd, in: in, pending: map[int64]chan Reply{}, done: make(chan struct{})}
	go s.read(out)
	if _, err := s.Call(ctx, "initialize", initParams()); err != nil {
		s.Close()
		return nil, fmt.Errorf("initialize %s: %w", argv[0], err)
	}
	s.InitMs = Ms(time.Since(t0))
	if err := s.write(0, "notifications/initialized", map[string]any{}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Pid is the server's process id.
func (s *Stdio) Pid() int { return s.Cmd.Process.Pid }

func (s *Stdio) write(id int64, method string, params any) error {
	b, err := request(id, method, params)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.in.Write(append(b, '\n'))
	return err
}

func (s *Stdio) read(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<20)
	var err error
	for {
		var line []byte
		line, err = r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m rpcMessage
			if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method == "" {
				id, _ := strconv.ParseInt(string(*m.ID), 10, 64)
				s.mu.Lock()
				ch := s.pending[id]
				delete(s.pending, id)
				s.mu.Unlock()
				if ch != nil {
					ch <- Reply{Result: m.Result, Error: m.Error, Bytes: len(line)}
				}
			}
		}
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	s.err = fmt.Errorf("the server closed its stdout: %v", err)
	s.mu.Unlock()
	close(s.done)
}

// Call sends a request and waits for its reply.
func (s *Stdio) Call(ctx context.Context, method string, params any) (Reply, error) {
	id := s.next.Add(1)
	ch := make(chan Reply, 1)
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return Reply{}, s.err
	}
	s.pending[id] = ch
	s.mu.Unlock()
	if err := s.write(id, method, params); err != nil {
		return Reply{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-s.done:
		return Reply{}, s.err
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		return Reply{}, ctx.Err()
	}
}

// Close ends the session: stdin closes, and the server is killed if it
// has not exited a second later.
func (s *Stdio) Close() {
	s.in.Close()
	exited := make(chan struct{})
	go func() { s.Cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(time.Second):
		s.Cmd.Process.Kill()
		<-exited
	}
}

// HTTP is a client of a streamable HTTP MCP endpoint that sends each call
// as its own POST, without a session (the servers measured are stateless),
// over keep-alive connections.
//
// It is a load generator as much as a client, so it costs as little as an
// HTTP/1.1 client can: each call writes its request on a connection of its
// own pool and reads the response there, on the calling goroutine, with
// net/http's response parser (status, headers, Content-Length or chunked
// bodies, Connection: close). net/http's Transport runs two goroutines per
// connection and hands every request and response between them and the
// caller: on a two-core machine those handoffs cost about as much CPU as a
// fast server's whole call, and the generator, not the server, became the
// limit.
type HTTP struct {
	URL   string
	Token string // a bearer token, if the server wants one
	next  atomic.Int64

	host, path string
	conns      chan *httpConn // idle keep-alive connections
	bufs       sync.Pool      // request buffers
}

// httpConn is one keep-alive connection.
type httpConn struct {
	c net.Conn
	r *bufio.Reader
}

// NewHTTP returns a client for url (http://host:port/path) keeping up to
// conns idle connections.
func NewHTTP(url string, conns int) *HTTP {
	h := &HTTP{URL: url, conns: make(chan *httpConn, max(conns, 1))}
	rest, _ := strings.CutPrefix(url, "http://")
	h.host, h.path, _ = strings.Cut(rest, "/")
	h.path = "/" + h.path
	return h
}

// Call POSTs one request and reads its reply, as JSON or as an event
// stream. A status other than 200 is an error.
func (h *HTTP) Call(ctx context.Context, method string, params any) (Reply, error) {
	id := h.next.Add(1)
	body, err := request(id, method, params)
	if err != nil {
		return Reply{}, err
	}
	b, err := h.post(ctx, body)
	if err != nil {
		return Reply{}, err
	}
	msg := b
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("event:")) || bytes.HasPrefix(bytes.TrimSpace(b), []byte("data:")) {
		msg = nil
		for _, l := range bytes.Split(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(l, []byte("data:")); ok && bytes.Contains(d, []byte(`"id"`)) {
				msg = d
			}
		}
	}
	var m rpcMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return Reply{}, fmt.Errorf("a reply that is not JSON-RPC: %v: %.200s", err, b)
	}
	return Reply{Result: m.Result, Error: m.Error, Bytes: len(b)}, nil
}

// post sends body and returns the response's body, on an idle connection
// or a new one. A connection that fails before any of the response was
// read, as a keep-alive connection the server closed meanwhile does, is
// dropped and the request sent once more on a new one.
func (h *HTTP) post(ctx context.Context, body []byte) ([]byte, error) {
	req := h.request(body)
	defer h.bufs.Put(req)
	for retried := false; ; retried = true {
		var c *httpConn
		select {
		case c = <-h.conns:
		default:
		}
		reused := c != nil
		if c == nil {
			var d net.Dialer
			nc, err := d.DialContext(ctx, "tcp", h.host)
			if err != nil {
				return nil, err
			}
			c = &httpConn{c: nc, r: bufio.NewReaderSize(nc, 16<<10)}
		}
		b, keep, started, err := c.roundTrip(ctx, req.Bytes())
		if err != nil {
			c.c.Close()
			if reused && !started && !retried && ctx.Err() == nil {
				continue
			}
			return nil, err
		}
		if keep {
			select {
			case h.conns <- c:
			default:
				c.c.Close()
			}
		} else {
			c.c.Close()
		}
		return b, nil
	}
}

// request writes the POST of body into a pooled buffer.
func (h *HTTP) request(body []byte) *bytes.Buffer {
	buf, _ := h.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	buf.WriteString("POST " + h.path + " HTTP/1.1\r\nHost: " + h.host +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: " + ProtocolVersion + "\r\n")
	if h.Token != "" {
		buf.WriteString("Authorization: Bearer " + h.Token + "\r\n")
	}
	buf.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	buf.Write(body)
	return buf
}

// roundTrip writes req and reads the response. started says whether any
// of the response had come; keep whether the connection may be reused.
func (c *httpConn) roundTrip(ctx context.Context, req []byte) (body []byte, keep, started bool, err error) {
	if dl, ok := ctx.Deadline(); ok {
		c.c.SetDeadline(dl)
	} else {
		c.c.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { c.c.SetDeadline(time.Now()) })
	defer stop()
	if _, err := c.c.Write(req); err != nil {
		return nil, false, false, err
	}
	if _, err := c.r.Peek(1); err != nil {
		return nil, false, false, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return nil, false, true, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, false, true, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, !resp.Close, true, &StatusError{Code: resp.StatusCode, Body: string(b[:min(len(b), 300)])}
	}
	return b, !resp.Close, true, nil
}

// StatusError is an HTTP reply other than 200.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body) }

// Caller is either client.
type Caller interface {
	Call(ctx context.Context, method string, params any) (Reply, error)
}

// CallTool calls a tool and returns the reply, or the error of the call or
// of the tool.
func CallTool(ctx context.Context, c Caller, tool string, args map[string]any) (Reply, error) {
	r, err := c.Call(ctx, "tools/call", CallParams(tool, args))
	if err != nil {
		return r, err
	}
	return r, r.ToolError()
}

// IsToolError says whether err is the tool's own isError result.
func IsToolError(err error) bool {
	var te *ToolError
	return errors.As(err, &te)
}
