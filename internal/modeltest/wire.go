package modeltest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Provider is one model API's wire format as a Fake speaks it: the path it
// answers, how it renders a Reply, what the real API refuses, and how to
// read a request body a client sent. Anthropic and OpenAI are the two.
type Provider struct {
	Name string // "anthropic" or "openai", as the agent's model names begin
	Path string // the endpoint: "/v1/messages"

	base     string // what a client's base URL adds to the server's
	render   func(n int, model string, r Reply) any
	check    func(body map[string]any, hdr http.Header) error
	system   func(body map[string]any) string
	tools    func(body map[string]any) map[string]map[string]any
	results  func(body map[string]any) []ToolResult
	userText func(body map[string]any) string
	question func(body map[string]any) string
}

// ToolResult is a tool result as a request carried it, in either format.
type ToolResult struct {
	ID      string
	Text    string
	IsError bool
}

// Check returns what the real API would refuse in a request: a missing
// field or header, roles out of order, a tool call not answered right
// after it. It returns nil for a request the API takes.
func (p Provider) Check(body map[string]any, hdr http.Header) error { return p.check(body, hdr) }

// System is a request's system prompt.
func (p Provider) System(body map[string]any) string { return p.system(body) }

// Tools maps the names of the tools a request offers to their input
// schemas. OpenAI's strict flag is read into the schema (a copy) as
// "x-strict": true.
func (p Provider) Tools(body map[string]any) map[string]map[string]any { return p.tools(body) }

// Results is the tool results of a request's newest user turn, in order.
// OpenAI's format has no error flag: the agent starts an error's text with
// "Error: ", which Results takes off and reports as IsError.
func (p Provider) Results(body map[string]any) []ToolResult { return p.results(body) }

// UserText is the text of a request's newest user turn: "" when the turn
// holds only tool results (in OpenAI's format, when the last message is
// not the user's).
func (p Provider) UserText(body map[string]any) string { return p.userText(body) }

// Question is the text of a request's first user message.
func (p Provider) Question(body map[string]any) string { return p.question(body) }

// Fake is a model server speaking one Provider's wire format, scripted
// with the replies it gives, in order, and recording every request. It is
// safe for concurrent use.
type Fake struct {
	*httptest.Server
	t     testing.TB
	p     Provider
	check func(body map[string]any, hdr http.Header) error

	mu      sync.Mutex
	script  []Reply
	bodies  []map[string]any
	headers []http.Header
}

// FakeOptions adds a test's own rules to a Fake; nil adds none.
type FakeOptions struct {
	// Check, when not nil, returns what the test refuses in a request
	// beyond what the API refuses: a key, a model name, a tool.
	Check func(body map[string]any, hdr http.Header) error
}

// NewFake starts a fake of p's API that answers each request with the
// next reply of script, and stops it when the test ends. A request to
// another path, one that p.Check or o.Check refuses, or one that comes
// after the script has run out fails the test and gets an error status. A
// Reply with a Status answers with that status and its Text as the error.
func NewFake(t testing.TB, p Provider, o *FakeOptions, script ...Reply) *Fake {
	f := &Fake{t: t, p: p, script: script}
	if o != nil {
		f.check = o.Check
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	// Refusals are 4xx: the clients retry a 5xx, a 400 they do not.
	refuse := func(code int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		f.t.Errorf("fake %s: %s", f.p.Name, msg)
		writeError(w, code, "invalid_request_error", msg)
	}
	if r.Method != http.MethodPost || r.URL.Path != f.p.Path {
		refuse(http.StatusNotFound, "%s %s, want POST %s", r.Method, r.URL.Path, f.p.Path)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		refuse(http.StatusBadRequest, "request body: %v", err)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.headers = append(f.headers, r.Header.Clone())
	n := len(f.bodies)
	reply, scripted := Reply{}, len(f.script) > 0
	if scripted {
		reply, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	err := f.p.check(body, r.Header)
	if err == nil && f.check != nil {
		err = f.check(body, r.Header)
	}
	if err != nil {
		refuse(http.StatusBadRequest, "request %d: %v", n, err)
		return
	}
	if !scripted {
		refuse(http.StatusBadRequest, "request %d: the script has no more turns", n)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, "fake_error", reply.Text)
		return
	}
	writeJSON(w, f.p.render(n, str(body["model"]), reply))
}

// BaseURL is the API root to give p's client: the server's URL, and /v1
// for OpenAI.
func (f *Fake) BaseURL() string { return f.URL + f.p.base }

// Bodies returns the request bodies received so far, in order, decoded.
func (f *Fake) Bodies() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bodies)
}

// Headers returns the headers of the requests received so far, in order.
func (f *Fake) Headers() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.headers)
}

// Left counts the scripted replies not yet asked for.
func (f *Fake) Left() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.script)
}

// Scripted replies.

// Say is a reply of text.
func Say(text string) Reply { return Reply{Text: text} }

// Use is a reply that calls the tool name with args (JSON text, or any
// value to marshal), the call named id.
func Use(id, name string, args any) Reply {
	return Reply{Calls: []ReplyCall{{ID: id, Name: name, Args: args}}}
}

// Query is a reply that calls run_query with sql.
func Query(id, sql string) Reply {
	return Use(id, "run_query", map[string]string{"sql": sql})
}

// Submit is a reply that calls submit_answer with sql and answer.
func Submit(id, sql, answer string) Reply {
	return Use(id, "submit_answer", map[string]string{"sql": sql, "answer": answer})
}

// Turn joins replies into one: their texts, a line apart, then their
// calls in order, and the last Status set.
func Turn(parts ...Reply) Reply {
	var r Reply
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
		r.Calls = append(r.Calls, p.Calls...)
		if p.Status != 0 {
			r.Status = p.Status
		}
	}
	r.Text = strings.Join(texts, "\n")
	return r
}

// arguments is c.Args as JSON text.
func (c ReplyCall) arguments() string {
	if s, ok := c.Args.(string); ok {
		return s
	}
	b, _ := json.Marshal(c.Args)
	return string(b)
}

// id is c's ID, or one made up for the i-th call of the n-th reply.
func (c ReplyCall) id(n, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", n, i)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// writeError answers with an error body both APIs' clients read.
func writeError(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// Reading decoded JSON.

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }

// last is the last element of a, nil for none.
func last(a []any) any {
	if len(a) == 0 {
		return nil
	}
	return a[len(a)-1]
}

// Anthropic is the Messages API: the system prompt and tools beside the
// messages, whose roles alternate from the user's; tool calls are tool_use
// blocks, answered by tool_result blocks in the next user message. Each
// reply reports 100 input and 20 output tokens, and 1,000 cached: written
// by the first reply, read by the later ones.
var Anthropic = Provider{
	Name:     "anthropic",
	Path:     "/v1/messages",
	render:   anthropicReply,
	check:    anthropicCheck,
	system:   anthropicSystem,
	tools:    anthropicTools,
	results:  anthropicResults,
	userText: anthropicUserText,
	question: anthropicQuestion,
}

func anthropicReply(n int, model string, r Reply) any {
	content := []any{}
	if r.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	stop := "end_turn"
	for i, c := range r.Calls {
		args := c.arguments()
		input := json.RawMessage(args)
		if !json.Valid(input) {
			input, _ = json.Marshal(args)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": c.id(n, i), "name": c.Name, "input": input})
		stop = "tool_use"
	}
	write, read := 0, 1000
	if n == 1 {
		write, read = 1000, 0
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": write, "cache_read_input_tokens": read},
	}
}

func anthropicCheck(body map[string]any, hdr http.Header) error {
	if hdr.Get("Anthropic-Version") == "" {
		return errors.New("no anthropic-version header")
	}
	if str(body["model"]) == "" || body["max_tokens"] == nil {
		return errors.New("model and max_tokens are required")
	}
	for _, t := range arr(body["tools"]) {
		if obj(obj(t)["input_schema"]) == nil {
			return fmt.Errorf("tool %s has no input_schema", str(obj(t)["name"]))
		}
	}
	msgs := arr(body["messages"])
	for i, m := range msgs {
		role := str(obj(m)["role"])
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if role != want {
			return fmt.Errorf("message %d has role %q, want %q: roles alternate, starting with user", i, role, want)
		}
		content := arr(obj(m)["content"])
		if len(content) == 0 {
			return fmt.Errorf("message %d has no content", i)
		}
		for _, b := range content {
			if str(obj(b)["type"]) == "text" && str(obj(b)["text"]) == "" {
				return fmt.Errorf("message %d has an empty text block", i)
			}
		}
		if role != "assistant" {
			continue
		}
		var ids []string
		for _, b := range content {
			if str(obj(b)["type"]) == "tool_use" {
				ids = append(ids, str(obj(b)["id"]))
				if obj(obj(b)["input"]) == nil {
					return fmt.Errorf("message %d: tool_use input is not an object: %v", i, obj(b)["input"])
				}
			}
		}
		if len(ids) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			return fmt.Errorf("tool_use ids %v have no tool_result after them", ids)
		}
		var got []string
		for _, b := range arr(obj(msgs[i+1])["content"]) {
			if str(obj(b)["type"]) == "tool_result" {
				got = append(got, str(obj(b)["tool_use_id"]))
			}
		}
		if !slices.Equal(got, ids) {
			return fmt.Errorf("message %d: tool_use ids %v are answered by tool_results %v", i, ids, got)
		}
	}
	return nil
}

func anthropicSystem(body map[string]any) string {
	var parts []string
	for _, b := range arr(body["system"]) {
		parts = append(parts, str(obj(b)["text"]))
	}
	return strings.Join(parts, "\n")
}

func anthropicTools(body map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, t := range arr(body["tools"]) {
		out[str(obj(t)["name"])] = obj(obj(t)["input_schema"])
	}
	return out
}

func anthropicResults(body map[string]any) []ToolResult {
	var out []ToolResult
	for _, b := range arr(obj(last(arr(body["messages"])))["content"]) {
		if str(obj(b)["type"]) != "tool_result" {
			continue
		}
		// The content is a string or a list of text blocks.
		var parts []string
		switch c := obj(b)["content"].(type) {
		case string:
			parts = append(parts, c)
		case []any:
			for _, p := range c {
				parts = append(parts, str(obj(p)["text"]))
			}
		}
		isErr, _ := obj(b)["is_error"].(bool)
		out = append(out, ToolResult{ID: str(obj(b)["tool_use_id"]), Text: strings.Join(parts, ""), IsError: isErr})
	}
	return out
}

func anthropicUserText(body map[string]any) string {
	var parts []string
	for _, b := range arr(obj(last(arr(body["messages"])))["content"]) {
		if str(obj(b)["type"]) == "text" {
			parts = append(parts, str(obj(b)["text"]))
		}
	}
	return strings.Join(parts, "\n")
}

func anthropicQuestion(body map[string]any) string {
	msgs := arr(body["messages"])
	if len(msgs) == 0 {
		return ""
	}
	first := arr(obj(msgs[0])["content"])
	if len(first) == 0 {
		return ""
	}
	return str(obj(first[0])["text"])
}

// OpenAI is the Chat Completions API: the system prompt is the first
// message; tool calls ride on an assistant message, their arguments a JSON
// string, each answered by a tool message right after it. Each reply
// reports 1,100 prompt tokens, 1,000 of them cached, and 20 completion
// tokens.
var OpenAI = Provider{
	Name:     "openai",
	Path:     "/v1/chat/completions",
	base:     "/v1",
	render:   openAIScripted,
	check:    openAICheck,
	system:   openAISystem,
	tools:    openAITools,
	results:  openAIResults,
	userText: openAIUserText,
	question: openAIQuestion,
}

func openAIScripted(n int, model string, r Reply) any {
	return openAIReply(n, model, r, map[string]any{"prompt_tokens": 1100, "completion_tokens": 20, "total_tokens": 1120,
		"prompt_tokens_details": map[string]any{"cached_tokens": 1000}})
}

// openAIReply renders r as the n-th response of a fake, reporting usage.
func openAIReply(n int, model string, r Reply, usage map[string]any) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
		var calls []any
		for i, c := range r.Calls {
			// Arguments travel as a JSON string, not an object.
			calls = append(calls, map[string]any{"id": c.id(n, i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.arguments()}})
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1764000000, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   usage,
	}
}

func openAICheck(body map[string]any, _ http.Header) error {
	if str(body["model"]) == "" {
		return errors.New("model is required")
	}
	for _, t := range arr(body["tools"]) {
		if str(obj(t)["type"]) != "function" {
			return fmt.Errorf("tool of type %q", str(obj(t)["type"]))
		}
	}
	msgs := arr(body["messages"])
	// Not the API's rule, but System reads the first message.
	if len(msgs) == 0 || str(obj(msgs[0])["role"]) != "system" {
		return errors.New("the first message is not the system prompt")
	}
	for i := 0; i < len(msgs); i++ {
		m := obj(msgs[i])
		if str(m["role"]) != "assistant" {
			continue
		}
		for _, c := range arr(m["tool_calls"]) {
			args := str(obj(obj(c)["function"])["arguments"])
			if !json.Valid([]byte(args)) {
				return fmt.Errorf("message %d: arguments are not a JSON string: %q", i, args)
			}
			i++
			if i >= len(msgs) || str(obj(msgs[i])["role"]) != "tool" || str(obj(msgs[i])["tool_call_id"]) != str(obj(c)["id"]) {
				return fmt.Errorf("tool call %s is not answered by the tool message right after it", str(obj(c)["id"]))
			}
		}
	}
	return nil
}

func openAISystem(body map[string]any) string {
	msgs := arr(body["messages"])
	if len(msgs) == 0 {
		return ""
	}
	return str(obj(msgs[0])["content"])
}

func openAITools(body map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, t := range arr(body["tools"]) {
		fn := obj(obj(t)["function"])
		schema := obj(fn["parameters"])
		if strict, _ := fn["strict"].(bool); strict {
			schema = maps.Clone(schema)
			if schema == nil {
				schema = map[string]any{}
			}
			schema["x-strict"] = true
		}
		out[str(fn["name"])] = schema
	}
	return out
}

func openAIResults(body map[string]any) []ToolResult {
	msgs := arr(body["messages"])
	// The newest turn's tool messages: those after the last assistant message.
	i := len(msgs) - 1
	for i >= 0 && str(obj(msgs[i])["role"]) != "assistant" {
		i--
	}
	var out []ToolResult
	for _, m := range msgs[i+1:] {
		if str(obj(m)["role"]) != "tool" {
			continue
		}
		content := str(obj(m)["content"])
		out = append(out, ToolResult{ID: str(obj(m)["tool_call_id"]), Text: strings.TrimPrefix(content, "Error: "),
			IsError: strings.HasPrefix(content, "Error: ")})
	}
	return out
}

func openAIUserText(body map[string]any) string {
	m := obj(last(arr(body["messages"])))
	if str(m["role"]) != "user" {
		return ""
	}
	return str(m["content"])
}

func openAIQuestion(body map[string]any) string {
	for _, m := range arr(body["messages"]) {
		if str(obj(m)["role"]) == "user" {
			return str(obj(m)["content"])
		}
	}
	return ""
}
