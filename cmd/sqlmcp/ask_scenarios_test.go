package main

// Scenarios for `sqlmcp ask`, run through run (the binary's own code path)
// against fake model servers that speak the real wire protocols, the
// Anthropic Messages API and OpenAI's Chat Completions, scripted turn by
// turn, with the real `sqlmcp serve` (the test binary, see TestMain) on a
// fresh copy of the SQLite fixture under it. Each scenario checks what the
// fake was sent (the transcript) and what ask printed.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// wireResult is a tool result as a request carried it, provider-neutral.
type wireResult struct {
	ID      string
	Text    string
	IsError bool
}

// wireProvider is one model API's wire protocol: how ask is pointed at a
// fake of it, how the fake replies, and how to read what ask sent.
type wireProvider struct {
	name string
	path string
	// env and args point ask at a fake served at url.
	env  map[string]string
	args func(url string) []string
	// reply renders a scripted turn as the API's response body.
	reply func(n int, blocks []agent.Block) any
	// check returns what the real API would refuse in a request.
	check func(req map[string]any, hdr http.Header) error
	// results and userText read the newest user turn of a request: its
	// tool results in order, and its text.
	results  func(req map[string]any) []wireResult
	userText func(req map[string]any) string
	// question is the first user message's text.
	question func(req map[string]any) string
}

var wireProviders = []wireProvider{anthropicWire, openAIWire}

// wireFake is a model server for one provider, scripted with the turns it
// answers in order, recording every request.
type wireFake struct {
	t   *testing.T
	p   wireProvider
	srv *httptest.Server

	mu     sync.Mutex
	script [][]agent.Block
	reqs   []map[string]any
}

func newWireFake(t *testing.T, p wireProvider, script ...[]agent.Block) *wireFake {
	f := &wireFake{t: t, p: p, script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *wireFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// Failures are 400s: ask's clients retry 5xx, a 400 they do not.
	fail := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		f.t.Errorf("fake %s: %s", f.p.name, msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	}
	if r.Method != http.MethodPost || r.URL.Path != f.p.path {
		fail("%s %s, want POST %s", r.Method, r.URL.Path, f.p.path)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		fail("request body: %v", err)
		return
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	var turn []agent.Block
	if len(f.script) > 0 {
		turn, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	if err := f.p.check(req, r.Header); err != nil {
		fail("request %d: %v", n, err)
		return
	}
	if turn == nil {
		fail("request %d: the script has no more turns", n)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(f.p.reply(n, turn))
}

func (f *wireFake) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

// left is how many scripted turns were not asked for.
func (f *wireFake) left() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.script)
}

// Scripted blocks.

func sText(s string) agent.Block { return agent.Block{Type: "text", Text: s} }

func sUse(id, name string, input any) agent.Block {
	b, _ := json.Marshal(input)
	return agent.Block{Type: "tool_use", ID: id, Name: name, Input: b}
}

func sQuery(id, sql string) agent.Block {
	return sUse(id, "run_query", map[string]string{"sql": sql})
}

func sSubmit(id, sql, answer string) agent.Block {
	return sUse(id, "submit_answer", map[string]string{"sql": sql, "answer": answer})
}

func sTurn(blocks ...agent.Block) []agent.Block { return blocks }

// Reading decoded JSON.

func jObj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func jArr(v any) []any          { a, _ := v.([]any); return a }
func jStr(v any) string         { s, _ := v.(string); return s }

// The Anthropic Messages API.

var anthropicWire = wireProvider{
	name: "anthropic",
	path: "/v1/messages",
	env:  map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"},
	args: func(url string) []string {
		return []string{"--provider", "anthropic", "--base-url", url, "--model", "claude-fake"}
	},
	reply: func(n int, blocks []agent.Block) any {
		content := []any{}
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
			"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-fake",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": write, "cache_read_input_tokens": read},
		}
	},
	check: func(req map[string]any, hdr http.Header) error {
		// The API takes the key as x-api-key or, as this SDK sends it, a
		// bearer token.
		if hdr.Get("X-Api-Key") != "sk-ant-test" && hdr.Get("Authorization") != "Bearer sk-ant-test" {
			return fmt.Errorf("x-api-key %q, authorization %q: want the key from ANTHROPIC_API_KEY", hdr.Get("X-Api-Key"), hdr.Get("Authorization"))
		}
		if hdr.Get("Anthropic-Version") == "" {
			return fmt.Errorf("no anthropic-version header")
		}
		if jStr(req["model"]) != "claude-fake" || req["max_tokens"] == nil {
			return fmt.Errorf("model %q (want claude-fake) and max_tokens are required", jStr(req["model"]))
		}
		var tools []string
		for _, tl := range jArr(req["tools"]) {
			tools = append(tools, jStr(jObj(tl)["name"]))
			if jObj(jObj(tl)["input_schema"]) == nil {
				return fmt.Errorf("tool %s has no input_schema", jStr(jObj(tl)["name"]))
			}
		}
		if !slices.Contains(tools, "run_query") || !slices.Contains(tools, "submit_answer") {
			return fmt.Errorf("tools %v lack run_query or submit_answer", tools)
		}
		if len(jArr(req["system"])) == 0 {
			return fmt.Errorf("no system prompt")
		}
		msgs := jArr(req["messages"])
		for i, m := range msgs {
			role := jStr(jObj(m)["role"])
			want := "user"
			if i%2 == 1 {
				want = "assistant"
			}
			if role != want {
				return fmt.Errorf("message %d has role %q, want %q: roles alternate, starting with user", i, role, want)
			}
			content := jArr(jObj(m)["content"])
			if len(content) == 0 {
				return fmt.Errorf("message %d has no content", i)
			}
			for _, b := range content {
				if jStr(jObj(b)["type"]) == "text" && jStr(jObj(b)["text"]) == "" {
					return fmt.Errorf("message %d has an empty text block", i)
				}
			}
			if role != "assistant" {
				continue
			}
			var ids []string
			for _, b := range content {
				if jStr(jObj(b)["type"]) == "tool_use" {
					ids = append(ids, jStr(jObj(b)["id"]))
					if jObj(jObj(b)["input"]) == nil {
						return fmt.Errorf("message %d: tool_use input is not an object: %v", i, jObj(b)["input"])
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
			for _, b := range jArr(jObj(msgs[i+1])["content"]) {
				if jStr(jObj(b)["type"]) == "tool_result" {
					got = append(got, jStr(jObj(b)["tool_use_id"]))
				}
			}
			if strings.Join(got, ",") != strings.Join(ids, ",") {
				return fmt.Errorf("message %d: tool_use ids %v are answered by tool_results %v", i, ids, got)
			}
		}
		return nil
	},
	results: func(req map[string]any) []wireResult {
		msgs := jArr(req["messages"])
		var out []wireResult
		for _, b := range jArr(jObj(msgs[len(msgs)-1])["content"]) {
			if jStr(jObj(b)["type"]) != "tool_result" {
				continue
			}
			var parts []string
			switch c := jObj(b)["content"].(type) {
			case string:
				parts = append(parts, c)
			case []any:
				for _, p := range c {
					parts = append(parts, jStr(jObj(p)["text"]))
				}
			}
			isErr, _ := jObj(b)["is_error"].(bool)
			out = append(out, wireResult{ID: jStr(jObj(b)["tool_use_id"]), Text: strings.Join(parts, ""), IsError: isErr})
		}
		return out
	},
	userText: func(req map[string]any) string {
		msgs := jArr(req["messages"])
		var parts []string
		for _, b := range jArr(jObj(msgs[len(msgs)-1])["content"]) {
			if jStr(jObj(b)["type"]) == "text" {
				parts = append(parts, jStr(jObj(b)["text"]))
			}
		}
		return strings.Join(parts, "\n")
	},
	question: func(req map[string]any) string {
		first := jArr(jObj(jArr(req["messages"])[0])["content"])
		return jStr(jObj(first[0])["text"])
	},
}

// OpenAI's Chat Completions API.

var openAIWire = wireProvider{
	name: "openai",
	path: "/v1/chat/completions",
	env:  map[string]string{"OPENAI_API_KEY": "sk-openai-test"},
	args: func(url string) []string {
		return []string{"--provider", "openai", "--base-url", url + "/v1", "--model", "fake-1"}
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
				// Arguments travel as a JSON string, not an object.
				calls = append(calls, map[string]any{"id": b.ID, "type": "function",
					"function": map[string]any{"name": b.Name, "arguments": string(b.Input)}})
				finish = "tool_calls"
			}
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		return map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1764000000, "model": "fake-1",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   map[string]any{"prompt_tokens": 1100, "completion_tokens": 20, "total_tokens": 1120},
		}
	},
	check: func(req map[string]any, hdr http.Header) error {
		if got := hdr.Get("Authorization"); got != "Bearer sk-openai-test" {
			return fmt.Errorf("authorization %q, want the key from OPENAI_API_KEY", got)
		}
		if jStr(req["model"]) != "fake-1" {
			return fmt.Errorf("model %q, want fake-1", jStr(req["model"]))
		}
		var tools []string
		for _, tl := range jArr(req["tools"]) {
			if jStr(jObj(tl)["type"]) != "function" {
				return fmt.Errorf("tool of type %q", jStr(jObj(tl)["type"]))
			}
			tools = append(tools, jStr(jObj(jObj(tl)["function"])["name"]))
		}
		if !slices.Contains(tools, "run_query") || !slices.Contains(tools, "submit_answer") {
			return fmt.Errorf("tools %v lack run_query or submit_answer", tools)
		}
		msgs := jArr(req["messages"])
		if len(msgs) == 0 || jStr(jObj(msgs[0])["role"]) != "system" {
			return fmt.Errorf("the first message is not the system prompt")
		}
		for i := 0; i < len(msgs); i++ {
			m := jObj(msgs[i])
			if jStr(m["role"]) != "assistant" {
				continue
			}
			for _, c := range jArr(m["tool_calls"]) {
				args := jStr(jObj(jObj(c)["function"])["arguments"])
				if !json.Valid([]byte(args)) {
					return fmt.Errorf("message %d: arguments are not a JSON string: %q", i, args)
				}
				i++
				if i >= len(msgs) || jStr(jObj(msgs[i])["role"]) != "tool" || jStr(jObj(msgs[i])["tool_call_id"]) != jStr(jObj(c)["id"]) {
					return fmt.Errorf("tool call %s is not answered by the tool message right after it", jStr(jObj(c)["id"]))
				}
			}
		}
		return nil
	},
	results: func(req map[string]any) []wireResult {
		msgs := jArr(req["messages"])
		last := len(msgs) - 1
		for last >= 0 && jStr(jObj(msgs[last])["role"]) != "assistant" {
			last--
		}
		var out []wireResult
		for _, m := range msgs[last+1:] {
			if jStr(jObj(m)["role"]) != "tool" {
				continue
			}
			content := jStr(jObj(m)["content"])
			// The format has no error flag: ask marks an error in the text.
			out = append(out, wireResult{ID: jStr(jObj(m)["tool_call_id"]), Text: strings.TrimPrefix(content, "Error: "),
				IsError: strings.HasPrefix(content, "Error: ")})
		}
		return out
	},
	userText: func(req map[string]any) string {
		msgs := jArr(req["messages"])
		m := jObj(msgs[len(msgs)-1])
		if jStr(m["role"]) != "user" {
			return ""
		}
		return jStr(m["content"])
	},
	question: func(req map[string]any) string {
		for _, m := range jArr(req["messages"]) {
			if jStr(jObj(m)["role"]) == "user" {
				return jStr(jObj(m)["content"])
			}
		}
		return ""
	},
}

// Notes the agent sends the model (agent/agent.go).
const (
	wantLastTurnNote = "This is your last turn: call submit_answer now with your best SQL and answer."
	wantReminderNote = "Plain text is not read as an answer. Call submit_answer"
	wantEmptyNote    = "Not accepted yet: the query returned no rows. Double-check before you submit it"
	notSubmittedNote = "Note: the model did not submit an answer; this is the last query that ran.\n"
)

const (
	ordersSQL   = `SELECT count(*) AS orders FROM "order"`
	ordersTable = "\nSQL:\n  SELECT count(*) AS orders FROM \"order\"\n\n orders\n--------\n      4\n(1 row)\n"
	citiesSQL   = "SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY customers DESC, city"
	parisSQL    = "SELECT name FROM customers WHERE city = 'Paris'"
)

// askScenario is one scripted conversation.
type askScenario struct {
	name     string
	question string
	args     []string // more flags for ask
	http     bool     // ask --server an in-process serve --http with a token
	turns    [][]agent.Block
	want     string // ask's exact output
	// transcript checks the requests the fake received.
	transcript func(t *testing.T, p wireProvider, reqs []map[string]any)
}

// wantRequests fails unless there were n requests.
func wantRequests(t *testing.T, reqs []map[string]any, n int) bool {
	t.Helper()
	if len(reqs) != n {
		t.Errorf("the model was called %d times, want %d", len(reqs), n)
		return false
	}
	return true
}

// wantResults fails unless the newest user turn of req carries exactly
// these tool results, each with its error flag and a piece of its text.
func wantResults(t *testing.T, p wireProvider, req map[string]any, want ...wireResult) {
	t.Helper()
	got := p.results(req)
	if len(got) != len(want) {
		t.Errorf("%d tool results in one message, want %d: %+v", len(got), len(want), got)
		return
	}
	for i, w := range want {
		if got[i].ID != w.ID || got[i].IsError != w.IsError || !strings.Contains(got[i].Text, w.Text) {
			t.Errorf("tool result %d: got id %s, error %v, text %q; want id %s, error %v, text containing %q",
				i, got[i].ID, got[i].IsError, got[i].Text, w.ID, w.IsError, w.Text)
		}
	}
}

var askScenarios = []askScenario{
	{
		name:     "direct answer",
		question: "How many orders are there?",
		turns:    [][]agent.Block{sTurn(sSubmit("s1", ordersSQL, "There are 4 orders."))},
		want:     "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 1) {
				if q := p.question(reqs[0]); q != "Question: How many orders are there?" {
					t.Errorf("the question was sent as %q", q)
				}
				if r := p.results(reqs[0]); len(r) != 0 {
					t.Errorf("tool results before any call: %+v", r)
				}
			}
		},
	},
	{
		name:     "wrong column fixed",
		question: "Which cities do our customers live in?",
		turns: [][]agent.Block{
			sTurn(sText("Let me count customers by town."), sQuery("q1", "SELECT town, count(*) FROM customers GROUP BY town")),
			sTurn(sQuery("q2", citiesSQL)),
			sTurn(sSubmit("s1", citiesSQL, "London has the most customers (2); Austin and New York have one each.")),
		},
		want: citiesAnswer,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 3) {
				wantResults(t, p, reqs[1], wireResult{ID: "q1", IsError: true, Text: "no such column: town"})
				wantResults(t, p, reqs[2], wireResult{ID: "q2", Text: "city | customers\nLondon | 2"})
			}
		},
	},
	{
		name:     "empty result double-checked",
		question: "Which customers live in Paris?",
		turns: [][]agent.Block{
			sTurn(sSubmit("s1", parisSQL, "No customers live in Paris.")),
			sTurn(sText("Checked: the city is spelled as in the data."), sSubmit("s2", parisSQL, "No customers live in Paris.")),
		},
		want: "No customers live in Paris.\n\nSQL:\n  " + parisSQL + "\n\n name\n------\n(0 rows)\n",
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				// Not an error: a request to look again.
				wantResults(t, p, reqs[1], wireResult{ID: "s1", Text: wantEmptyNote})
			}
		},
	},
	{
		name:     "turn limit falls back to the last good query",
		question: "How many orders are there?",
		args:     []string{"--max-turns", "2"},
		turns: [][]agent.Block{
			sTurn(sQuery("q1", ordersSQL)),
			sTurn(sText("Let me check the statuses too."), sQuery("q2", `SELECT state FROM "order"`)),
		},
		want: notSubmittedNote + "Let me check the statuses too.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				wantResults(t, p, reqs[1], wireResult{ID: "q1", Text: "orders\n4"})
				if got := p.userText(reqs[1]); got != wantLastTurnNote {
					t.Errorf("the last turn's note: got %q, want %q", got, wantLastTurnNote)
				}
				if got := p.userText(reqs[0]); strings.Contains(got, "last turn") {
					t.Errorf("the first turn was told it is the last: %q", got)
				}
			}
		},
	},
	{
		name:     "plain text reminded",
		question: "How many orders are there?",
		turns: [][]agent.Block{
			sTurn(sText("There are 4 orders.")),
			sTurn(sSubmit("s1", ordersSQL, "There are 4 orders.")),
		},
		want: "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				if got := p.userText(reqs[1]); !strings.HasPrefix(got, wantReminderNote) {
					t.Errorf("after plain text the model was sent %q, want the reminder %q…", got, wantReminderNote)
				}
				if r := p.results(reqs[1]); len(r) != 0 {
					t.Errorf("tool results after plain text: %+v", r)
				}
			}
		},
	},
	{
		name:     "parallel tool calls",
		question: "How many orders are there?",
		turns: [][]agent.Block{
			sTurn(sQuery("qa", ordersSQL), sQuery("qb", `SELECT total FROM "order"`), sUse("qc", "list_tables", map[string]any{})),
			sTurn(sSubmit("s1", ordersSQL, "There are 4 orders.")),
		},
		want: "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if !wantRequests(t, reqs, 2) {
				return
			}
			// All three results, in the calls' order, in one message.
			wantResults(t, p, reqs[1],
				wireResult{ID: "qa", Text: "orders\n4"},
				wireResult{ID: "qb", IsError: true, Text: "no such column: total"},
				wireResult{ID: "qc", Text: `"Order Items" (table, 5 rows`})
			msgs := jArr(reqs[1]["messages"])
			switch p.name {
			case "anthropic":
				// question, the assistant's three tool_use, one user message.
				if len(msgs) != 3 {
					t.Errorf("%d messages, want 3: the question, the calls, all results in one user message", len(msgs))
				}
			case "openai":
				// system, question, the assistant's three tool_calls, three tool messages.
				if len(msgs) != 6 || len(jArr(jObj(msgs[2])["tool_calls"])) != 3 {
					t.Errorf("%d messages, want 6: system, question, one assistant message with 3 tool_calls, 3 tool messages", len(msgs))
				}
			}
		},
	},
	{
		name:     "http server with a token",
		question: "How many orders are there?",
		http:     true,
		turns: [][]agent.Block{
			sTurn(sQuery("q1", ordersSQL)),
			sTurn(sSubmit("s1", ordersSQL, "There are 4 orders.")),
		},
		want: "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				wantResults(t, p, reqs[1], wireResult{ID: "q1", Text: "orders\n4"})
			}
		},
	},
}

func TestAskScenarios(t *testing.T) {
	t.Parallel()
	for _, p := range wireProviders {
		for _, sc := range askScenarios {
			t.Run(p.name+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				fake := newWireFake(t, p, sc.turns...)
				env := map[string]string{}
				for k, v := range p.env {
					env[k] = v
				}
				args := p.args(fake.srv.URL)
				path := dbtest.SQLiteFile(t)
				before := dbtest.Fingerprint(t, path)
				if sc.http {
					s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken}, "--db", path)
					args = append(args, "--server", s.base+"/mcp", "--token", envToken)
				} else {
					args = append(args, "--db", path)
				}
				args = append(append(args, sc.args...), sc.question)
				stdout, stderr, err := runAsk(t, env, "", args...)
				if err != nil {
					t.Fatalf("ask: %v\nstderr: %s", err, stderr)
				}
				if stdout != sc.want {
					t.Errorf("ask printed\n%s\nwant\n%s", stdout, sc.want)
				}
				if stderr != "" {
					t.Errorf("stderr: %q", stderr)
				}
				reqs := fake.requests()
				for i, req := range reqs {
					if q := p.question(req); !strings.HasPrefix(q, "Question: "+sc.question) {
						t.Errorf("request %d starts with %q, not the question", i+1, q)
					}
				}
				sc.transcript(t, p, reqs)
				if n := fake.left(); n != 0 {
					t.Errorf("%d scripted turns were never asked for", n)
				}
				if dbtest.Fingerprint(t, path) != before {
					t.Error("the database changed")
				}
			})
		}
	}
}

// TestAskScenariosWire checks the Anthropic transcript at the wire level,
// where the neutral reading above could hide a detail: a failed call's
// tool_result carries is_error true, a good one no error flag, and both sit
// in the user message after the assistant's tool_use blocks.
func TestAskScenariosWire(t *testing.T) {
	t.Parallel()
	fake := newWireFake(t, anthropicWire,
		sTurn(sQuery("q1", "SELECT town FROM customers"), sQuery("q2", ordersSQL)),
		sTurn(sSubmit("s1", ordersSQL, "There are 4 orders.")))
	args := append(anthropicWire.args(fake.srv.URL), "--db", dbtest.SQLiteFile(t), "How many orders are there?")
	stdout, stderr, err := runAsk(t, anthropicWire.env, "", args...)
	if err != nil || stdout != "There are 4 orders.\n"+ordersTable {
		t.Fatalf("got %v\n%s\nstderr: %s", err, stdout, stderr)
	}
	reqs := fake.requests()
	if !wantRequests(t, reqs, 2) {
		return
	}
	msgs := jArr(reqs[1]["messages"])
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3", len(msgs))
	}
	var uses []string
	for _, b := range jArr(jObj(msgs[1])["content"]) {
		uses = append(uses, jStr(jObj(b)["type"])+":"+jStr(jObj(b)["id"]))
	}
	if fmt.Sprint(uses) != "[tool_use:q1 tool_use:q2]" {
		t.Errorf("the assistant message sent back: %v, want the two tool_use blocks", uses)
	}
	blocks := jArr(jObj(msgs[2])["content"])
	if len(blocks) != 2 {
		t.Fatalf("the user message has %d blocks, want 2 tool_result blocks", len(blocks))
	}
	b1, b2 := jObj(blocks[0]), jObj(blocks[1])
	if jStr(b1["type"]) != "tool_result" || jStr(b1["tool_use_id"]) != "q1" || b1["is_error"] != true {
		t.Errorf("the failed call's block: %v, want a tool_result for q1 with is_error true", b1)
	}
	if jStr(b2["type"]) != "tool_result" || jStr(b2["tool_use_id"]) != "q2" || b2["is_error"] == true {
		t.Errorf("the good call's block: %v, want a tool_result for q2 without is_error", b2)
	}
}

// TestAskScenarioNoKey: with no key and no endpoint for the chosen
// provider, ask says how to set one and exits with status 2, before it
// starts a server or calls a model.
func TestAskScenarioNoKey(t *testing.T) {
	t.Parallel()
	path := dbtest.SQLiteFile(t)
	for _, p := range wireProviders {
		t.Run(p.name+"/no key", func(t *testing.T) {
			t.Parallel()
			// The other provider's key does not count.
			env := map[string]string{}
			for _, o := range wireProviders {
				if o.name != p.name {
					for k, v := range o.env {
						env[k] = v
					}
				}
			}
			stdout, _, err := runAsk(t, env, "", "--provider", p.name, "--db", path, "How many orders are there?")
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error (exit status 2)", err)
			}
			if !strings.HasPrefix(err.Error(), noModel) {
				t.Errorf("got %q, want %q", err, noModel)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
		})
	}
	// And as a process: the message on stderr, exit status 2.
	t.Run("exit status", func(t *testing.T) {
		t.Parallel()
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(t.Context(), exe, "ask", "--provider", "anthropic", "--db", path, "How many orders are there?")
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			if !strings.HasPrefix(name, "SQLMCP_") && !strings.HasPrefix(name, "ANTHROPIC_") && !strings.HasPrefix(name, "OPENAI_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "SQLMCP_TEST_BE_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("got %v, want exit status 2\nstderr: %s", err, stderr.String())
		}
		if want := "sqlmcp: " + noModel + "\n"; stderr.String() != want || stdout.String() != "" {
			t.Errorf("stderr %q, stdout %q; want stderr %q", stderr.String(), stdout.String(), want)
		}
	})
}

// TestAskRealModel asks a real model one question about the fixture, when
// a key is set in the environment.
func TestAskRealModel(t *testing.T) {
	env := map[string]string{}
	var args []string
	switch {
	case os.Getenv("ANTHROPIC_API_KEY") != "":
		env["ANTHROPIC_API_KEY"] = os.Getenv("ANTHROPIC_API_KEY")
		args = []string{"--provider", "anthropic"}
	case os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("OPENAI_BASE_URL") != "":
		for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"} {
			env[k] = os.Getenv(k)
		}
		args = []string{"--provider", "openai"}
	default:
		t.Skip("no model key set: ANTHROPIC_API_KEY or OPENAI_API_KEY (and OPENAI_BASE_URL for a local server) runs this against a real model")
	}
	if m := os.Getenv("SQLMCP_MODEL"); m != "" {
		args = append(args, "--model", m)
	}
	path := dbtest.SQLiteFile(t)
	useTestBinary()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var out, errOut strings.Builder
	args = append([]string{"ask"}, append(args, "--db", path, "--json", "How many customers live in London?")...)
	if err := run(ctx, args, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] }); err != nil {
		t.Fatalf("ask: %v\nstderr: %s", err, errOut.String())
	}
	var got struct {
		SQL, Answer, Model string
		Submitted          bool
		Turns              int
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("not one JSON object (%v):\n%s", err, out.String())
	}
	t.Logf("%s, %d turns, submitted %v: %s\n%s", got.Model, got.Turns, got.Submitted, got.Answer, got.SQL)
	if strings.TrimSpace(got.SQL) == "" {
		t.Fatalf("no SQL came back:\n%s", out.String())
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, got.SQL)
	if err != nil {
		t.Fatalf("the answer's SQL does not run: %v\n%s", err, got.SQL)
	}
	rows.Close()
}
