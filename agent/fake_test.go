package agent_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// sqlmcpBin is the real sqlmcp, built once for all tests.
var sqlmcpBin string

// TestMain builds sqlmcp, which the tests start over stdio: agent may not
// import the server, and everything under the fake model is real.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sqlmcpBin = filepath.Join(dir, "sqlmcp")
	build := exec.Command("go", "build", "-o", sqlmcpBin, "github.com/sqlmcp/sqlmcp/cmd/sqlmcp")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building sqlmcp: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// serve starts sqlmcp on a fresh copy of the SQLite fixture and connects
// client (a plain one when nil) to it over stdio.
func serve(t *testing.T, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	return serveDB(t, client, dbtest.SQLiteFile(t))
}

// serveDB starts sqlmcp on the database dsn names.
func serveDB(t *testing.T, client *mcp.Client, dsn string) *mcp.ClientSession {
	t.Helper()
	if client == nil {
		client = mcp.NewClient(&mcp.Implementation{Name: "agent-test"}, nil)
	}
	cmd := exec.Command(sqlmcpBin, "serve", "--db", dsn, "--log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting sqlmcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolResult is a tool result as a request carried it, provider-neutral.
type toolResult struct {
	ID      string
	Text    string
	IsError bool
}

// provider is a fake model server for one wire protocol, and how to read
// what the agent sent it.
type provider struct {
	name string
	path string
	// model points the real client at the fake.
	model func(url string) agent.Model
	// reply renders a scripted turn in the provider's response format.
	reply func(n int, blocks []agent.Block) any
	// check returns what a real API would refuse in a request body.
	check func(req map[string]any) error
	// system, tools, results and userText read a recorded request: the
	// system prompt, the tools' schemas by name, the tool results of the
	// newest user turn, and the text of the newest user turn.
	system   func(req map[string]any) string
	tools    func(req map[string]any) map[string]map[string]any
	results  func(req map[string]any) []toolResult
	userText func(req map[string]any) string
}

var providers = []provider{anthropicFake, openAIFake}

// fake is a model server speaking one provider's wire protocol, scripted
// with the turns it answers, in order, and recording every request.
type fake struct {
	t      *testing.T
	p      provider
	srv    *httptest.Server
	mu     sync.Mutex
	script [][]agent.Block
	reqs   []map[string]any
	hdrs   []http.Header
}

func newFake(t *testing.T, p provider, script ...[]agent.Block) *fake {
	f := &fake{t: t, p: p, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) model() agent.Model { return f.p.model(f.srv.URL) }

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fail := func(code int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		f.t.Errorf("fake %s: %s", f.p.name, msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	}
	if r.Method != http.MethodPost || r.URL.Path != f.p.path {
		fail(http.StatusNotFound, "%s %s, want POST %s", r.Method, r.URL.Path, f.p.path)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, "request body: %v", err)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.hdrs = append(f.hdrs, r.Header.Clone())
	n := len(f.reqs)
	var turn []agent.Block
	if len(f.script) > 0 {
		turn, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	if err := f.p.check(req); err != nil {
		fail(http.StatusBadRequest, "request %d: %v", n, err)
		return
	}
	if turn == nil {
		fail(http.StatusInternalServerError, "request %d: the script has no more turns", n)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(f.p.reply(n, turn))
}

// requests returns the recorded request bodies.
func (f *fake) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.reqs...)
}

// Scripted blocks.

func text(s string) agent.Block { return agent.Block{Type: "text", Text: s} }

func use(id, name, input string) agent.Block {
	return agent.Block{Type: "tool_use", ID: id, Name: name, Input: json.RawMessage(input)}
}

func query(id, sql string) agent.Block {
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return use(id, "run_query", string(b))
}

func submit(id, sql, answer string) agent.Block {
	b, _ := json.Marshal(map[string]string{"sql": sql, "answer": answer})
	return use(id, "submit_answer", string(b))
}

func turn(blocks ...agent.Block) []agent.Block { return blocks }

// Reading decoded JSON.

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }

// The Anthropic Messages API.

var anthropicFake = provider{
	name: "anthropic",
	path: "/v1/messages",
	model: func(url string) agent.Model {
		return agent.NewAnthropic(agent.AnthropicOptions{APIKey: "test-key", BaseURL: url, MaxRetries: -1})
	},
	reply: func(n int, blocks []agent.Block) any {
		var content []any
		stop := "end_turn"
		for _, b := range blocks {
			switch b.Type {
			case "text":
				content = append(content, map[string]any{"type": "text", "text": b.Text})
			case "tool_use":
				content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": b.Input})
				stop = "tool_use"
			}
		}
		write, read := 0, 0
		if n == 1 {
			write = 1000
		} else {
			read = 1000
		}
		return map[string]any{
			"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": write, "cache_read_input_tokens": read},
		}
	},
	check: func(req map[string]any) error {
		if str(req["model"]) == "" || req["max_tokens"] == nil {
			return fmt.Errorf("model and max_tokens are required")
		}
		msgs := arr(req["messages"])
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
			if strings.Join(got, ",") != strings.Join(ids, ",") {
				return fmt.Errorf("message %d: tool_use ids %v are answered by tool_results %v", i, ids, got)
			}
		}
		return nil
	},
	system: func(req map[string]any) string {
		var parts []string
		for _, b := range arr(req["system"]) {
			parts = append(parts, str(obj(b)["text"]))
		}
		return strings.Join(parts, "\n")
	},
	tools: func(req map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, t := range arr(req["tools"]) {
			out[str(obj(t)["name"])] = obj(obj(t)["input_schema"])
		}
		return out
	},
	results: func(req map[string]any) []toolResult {
		msgs := arr(req["messages"])
		var out []toolResult
		for _, b := range arr(obj(msgs[len(msgs)-1])["content"]) {
			if str(obj(b)["type"]) != "tool_result" {
				continue
			}
			var parts []string
			for _, c := range arr(obj(b)["content"]) {
				parts = append(parts, str(obj(c)["text"]))
			}
			isErr, _ := obj(b)["is_error"].(bool)
			out = append(out, toolResult{ID: str(obj(b)["tool_use_id"]), Text: strings.Join(parts, ""), IsError: isErr})
		}
		return out
	},
	userText: func(req map[string]any) string {
		msgs := arr(req["messages"])
		var parts []string
		for _, b := range arr(obj(msgs[len(msgs)-1])["content"]) {
			if str(obj(b)["type"]) == "text" {
				parts = append(parts, str(obj(b)["text"]))
			}
		}
		return strings.Join(parts, "\n")
	},
}

// OpenAI's Chat Completions API.

var openAIFake = provider{
	name: "openai",
	path: "/v1/chat/completions",
	model: func(url string) agent.Model {
		return agent.NewOpenAI(agent.OpenAIOptions{APIKey: "test-key", Model: "qwen3:8b", BaseURL: url + "/v1", MaxRetries: -1})
	},
	reply: func(n int, blocks []agent.Block) any {
		msg := map[string]any{"role": "assistant", "content": nil}
		finish := "stop"
		var calls []any
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg["content"] = b.Text
			case "tool_use":
				calls = append(calls, map[string]any{"id": b.ID, "type": "function",
					"function": map[string]any{"name": b.Name, "arguments": string(b.Input)}})
				finish = "tool_calls"
			}
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		return map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1764000000, "model": "qwen3:8b",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage": map[string]any{"prompt_tokens": 1100, "completion_tokens": 20, "total_tokens": 1120,
				"prompt_tokens_details": map[string]any{"cached_tokens": 1000}},
		}
	},
	check: func(req map[string]any) error {
		if str(req["model"]) == "" {
			return fmt.Errorf("model is required")
		}
		msgs := arr(req["messages"])
		if len(msgs) == 0 || str(obj(msgs[0])["role"]) != "system" {
			return fmt.Errorf("the first message is not the system prompt")
		}
		for i := 0; i < len(msgs); i++ {
			m := obj(msgs[i])
			if str(m["role"]) != "assistant" {
				continue
			}
			for _, c := range arr(m["tool_calls"]) {
				args := str(obj(obj(c)["function"])["arguments"])
				if !json.Valid([]byte(args)) {
					return fmt.Errorf("message %d: arguments are not JSON: %q", i, args)
				}
				i++
				if i >= len(msgs) || str(obj(msgs[i])["role"]) != "tool" || str(obj(msgs[i])["tool_call_id"]) != str(obj(c)["id"]) {
					return fmt.Errorf("tool call %s is not answered by the tool message right after it", str(obj(c)["id"]))
				}
			}
		}
		return nil
	},
	system: func(req map[string]any) string { return str(obj(arr(req["messages"])[0])["content"]) },
	tools: func(req map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, t := range arr(req["tools"]) {
			fn := obj(obj(t)["function"])
			schema := obj(fn["parameters"])
			if s, ok := fn["strict"].(bool); ok && s {
				schema["x-strict"] = true // how the test sees OpenAI's strict flag
			}
			out[str(fn["name"])] = schema
		}
		return out
	},
	results: func(req map[string]any) []toolResult {
		msgs := arr(req["messages"])
		// The newest turn's tool messages: after the last assistant message.
		last := len(msgs) - 1
		for last >= 0 && str(obj(msgs[last])["role"]) != "assistant" {
			last--
		}
		var out []toolResult
		for _, m := range msgs[last+1:] {
			if str(obj(m)["role"]) != "tool" {
				continue
			}
			content := str(obj(m)["content"])
			out = append(out, toolResult{ID: str(obj(m)["tool_call_id"]), Text: strings.TrimPrefix(content, "Error: "),
				IsError: strings.HasPrefix(content, "Error: ")})
		}
		return out
	},
	userText: func(req map[string]any) string {
		msgs := arr(req["messages"])
		m := obj(msgs[len(msgs)-1])
		if str(m["role"]) != "user" {
			return ""
		}
		return str(m["content"])
	},
}
