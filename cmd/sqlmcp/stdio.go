package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// stdio holds the stdio transport's streams, and answers every request a
// client sends before it hangs up. A client may write its requests and
// close stdin at once (a shell pipeline, a script, a test); the MCP SDK
// stops the session when its reader ends, dropping the replies still being
// worked on. So stdio holds stdin's end back until every request read from
// it has been answered on stdout, or until wait has passed, or ctx ends.
//
// It counts requests by reading each line of stdin (a message with a
// method and an id), and answers by the messages written to stdout (one a
// Write, as the SDK writes them) that carry a result or an error.
type stdio struct {
	in   io.Reader
	out  io.Writer
	wait time.Duration
	ctx  context.Context

	mu      sync.Mutex
	cond    *sync.Cond
	pending int    // requests read and not yet answered
	line    []byte // the start of a message whose newline has not come
	stop    bool   // wait passed or ctx ended: hold nothing back
}

func newStdio(ctx context.Context, in io.Reader, out io.Writer, wait time.Duration) *stdio {
	s := &stdio{in: in, out: out, wait: wait, ctx: ctx}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Read reads stdin. At its end, it first waits for the replies.
func (s *stdio) Read(p []byte) (int, error) {
	n, err := s.in.Read(p)
	s.mu.Lock()
	s.scan(p[:n])
	if err != nil && len(s.line) > 0 {
		s.pending += requests(s.line) // a last message without its newline
		s.line = nil
	}
	s.mu.Unlock()
	if errors.Is(err, io.EOF) {
		s.drain()
	}
	return n, err
}

// scan counts the requests among the whole lines in b, keeping a partial
// last line for the next call. s.mu is held.
func (s *stdio) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.line = append(s.line, b...)
			return
		}
		msg := b[:i]
		if len(s.line) > 0 {
			msg = append(s.line, msg...)
			s.line = s.line[:0]
		}
		s.pending += requests(msg)
		b = b[i+1:]
	}
}

// drain waits until every request read has been answered, wait has
// passed, or ctx has ended.
func (s *stdio) drain() {
	release := func() {
		s.mu.Lock()
		s.stop = true
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	timer := time.AfterFunc(s.wait, release)
	defer timer.Stop()
	unhook := context.AfterFunc(s.ctx, release)
	defer unhook()
	s.mu.Lock()
	for s.pending > 0 && !s.stop {
		s.cond.Wait()
	}
	s.mu.Unlock()
}

// Write writes one message to stdout and counts it when it answers.
func (s *stdio) Write(p []byte) (int, error) {
	n, err := s.out.Write(p)
	if k := answers(p); k > 0 {
		s.mu.Lock()
		s.pending -= k
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	return n, err
}

func (s *stdio) Close() error { return nil }

// jsonrpcHead is the part of a JSON-RPC message that says what it is.
type jsonrpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// requests counts the requests (a method and an id) in one line of
// stdin: a message or a batch of them. Anything else counts none.
func requests(line []byte) int {
	line = bytes.TrimSpace(line)
	var heads []jsonrpcHead
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &heads) != nil {
			return 0
		}
	} else {
		var h jsonrpcHead
		if json.Unmarshal(line, &h) != nil {
			return 0
		}
		heads = append(heads, h)
	}
	n := 0
	for _, h := range heads {
		if h.Method != "" && len(h.ID) > 0 && string(h.ID) != "null" {
			n++
		}
	}
	return n
}

// answers counts the responses (a result or an error, no method) in one
// message written to stdout, reading no further into a message than its
// keys before the result: the result may be large.
func answers(msg []byte) int {
	msg = bytes.TrimSpace(msg)
	if len(msg) > 0 && msg[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(msg, &batch) != nil {
			return 0
		}
		n := 0
		for _, m := range batch {
			n += answers(m)
		}
		return n
	}
	if n, ok := answersFast(msg); ok {
		return n
	}
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0
		}
		switch key {
		case "result", "error":
			return 1
		case "method":
			return 0
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return 0
		}
	}
	return 0
}

// answersFast reads the shape the MCP SDK writes, {"jsonrpc":"2.0","id":ID,
// then "result", "error" or "method", without a decoder; ok is false for
// any other shape.
func answersFast(msg []byte) (n int, ok bool) {
	rest, found := bytes.CutPrefix(msg, []byte(`{"jsonrpc":"2.0","id":`))
	if !found {
		return 0, false
	}
	// The id: a number, or a string without escapes.
	i := 0
	if len(rest) > 0 && rest[0] == '"' {
		j := bytes.IndexByte(rest[1:], '"')
		if j < 0 || bytes.IndexByte(rest[1:1+j], '\\') >= 0 {
			return 0, false
		}
		i = j + 2
	} else {
		for i < len(rest) && (rest[i] == '-' || rest[i] >= '0' && rest[i] <= '9') {
			i++
		}
	}
	switch rest = rest[i:]; {
	case bytes.HasPrefix(rest, []byte(`,"result":`)), bytes.HasPrefix(rest, []byte(`,"error":`)):
		return 1, true
	case bytes.HasPrefix(rest, []byte(`,"method":`)):
		return 0, true
	}
	return 0, false
}
