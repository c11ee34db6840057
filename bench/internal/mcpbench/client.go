package mcpbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
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
func CallParams(tool string, args map[string]any) map[string]any {
	return map[string]any{"name": tool, "arguments": args}
}

type rpcMessage struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *RPCError        `json:"error,omitempty"`
}

func request(id int64, method string, params any) ([]byte, error) {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != 0 {
		m["id"] = id
	}
	return json.Marshal(m)
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
type HTTP struct {
	URL    string
	Token  string // a bearer token, if the server wants one
	Client *http.Client
	next   atomic.Int64
}

// NewHTTP returns a client for url with up to conns connections.
func NewHTTP(url string, conns int) *HTTP {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, IdleConnTimeout: time.Minute}
	return &HTTP{URL: url, Client: &http.Client{Transport: tr}}
}

// Call POSTs one request and reads its reply, as JSON or as an event
// stream. A status other than 200 is an error.
func (h *HTTP) Call(ctx context.Context, method string, params any) (Reply, error) {
	id := h.next.Add(1)
	body, err := request(id, method, params)
	if err != nil {
		return Reply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return Reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return Reply{}, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return Reply{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return Reply{}, &StatusError{Code: resp.StatusCode, Body: string(b[:min(len(b), 300)])}
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
