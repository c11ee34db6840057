// Package modeltest holds fake model servers for tests. They speak the
// real wire protocols over real HTTP, so the agent's real clients talk to
// them: New speaks OpenAI's Chat Completions and a test decides each reply
// from the request; NewFake speaks the Anthropic Messages API or Chat
// Completions (a Provider), answers with scripted replies in order, and
// refuses what the real API would.
package modeltest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is the part of a Chat Completions request a test reads.
type Request struct {
	Model    string
	Messages []Message
	Tools    []string // the function names offered
}

// Message is one message, its content flattened to text.
type Message struct {
	Role       string
	Content    string
	ToolCallID string
	ToolCalls  []Call
}

// Call is a function call the model makes.
type Call struct {
	ID, Name, Arguments string
}

// FirstUser is the text of the first user message ("" for none).
func (r *Request) FirstUser() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// System is the text of the system messages.
func (r *Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Steps counts the assistant messages: the model's earlier turns.
func (r *Request) Steps() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// Reply is what a fake answers: text, or function calls, or both. A
// call's ID is made up when empty; Arguments may be any value, marshalled
// to JSON unless it is already a string.
type Reply struct {
	Text  string
	Calls []ReplyCall
	// Status, when not 0 or 200, answers with this HTTP status and Text
	// as the error message.
	Status int
}

// ReplyCall is a function call in a Reply.
type ReplyCall struct {
	ID   string
	Name string
	Args any
}

// Usage is the token count every reply of New reports.
const (
	PromptTokens     = 100
	CompletionTokens = 10
)

// Server is a fake OpenAI-compatible model server. It is safe for
// concurrent use.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*Request
}

// New starts a fake that answers each POST /v1/chat/completions with
// answer's reply, and stops it when the test ends.
func New(t testing.TB, answer func(*Request) Reply) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		req, err := decode(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		n := len(s.requests)
		s.mu.Unlock()
		reply := answer(req)
		if reply.Status != 0 && reply.Status != http.StatusOK {
			writeError(w, reply.Status, "fake_error", reply.Text)
			return
		}
		writeJSON(w, openAIReply(n, req.Model, reply, map[string]any{"prompt_tokens": PromptTokens,
			"completion_tokens": CompletionTokens, "total_tokens": PromptTokens + CompletionTokens}))
	}))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API root to give an OpenAI client: the server's URL
// and /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Calls counts the requests received so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// wire is a Chat Completions request as sent.
type wire struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func decode(r *http.Request) (*Request, error) {
	var w wire
	if err := json.NewDecoder(r.Body).Decode(&w); err != nil {
		return nil, err
	}
	req := &Request{Model: w.Model}
	for _, m := range w.Messages {
		msg := Message{Role: m.Role, Content: Text(m.Content), ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{c.ID, c.Function.Name, c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	return req, nil
}

// Text reads a message's content: a string, or an array of text parts.
func Text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
