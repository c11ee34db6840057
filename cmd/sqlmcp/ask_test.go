package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
)

// Questions the fake model knows, with the SQL it writes and its answer.
var script = map[string]struct{ sql, answer string }{
	"Which cities do our customers live in?": {
		"SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY customers DESC, city",
		"London has the most customers (2); Austin and New York have one each.",
	},
	"How many orders are there?": {
		`SELECT count(*) AS orders FROM "order"`,
		"There are 4 orders.",
	},
}

const (
	citiesQuestion = "Which cities do our customers live in?"
	ordersQuestion = "How many orders are there?"
	citiesAnswer   = `London has the most customers (2); Austin and New York have one each.

SQL:
  SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY customers DESC, city

 city     | customers
----------+-----------
 London   |         2
 Austin   |         1
 New York |         1
(3 rows)
`
)

// newFakeOpenAI starts a fake model for ask: for a question in script it
// calls list_tables, then run_query with the question's SQL, then
// submit_answer. Which step it is comes from the conversation it is sent
// (the number of assistant turns), so it needs no state and answers
// interleaved questions.
func newFakeOpenAI(t testing.TB) *modeltest.Server {
	return modeltest.New(t, func(r *modeltest.Request) modeltest.Reply {
		if !slices.Contains(r.Tools, "run_query") || !slices.Contains(r.Tools, "submit_answer") {
			return modeltest.Reply{Status: http.StatusBadRequest, Text: fmt.Sprintf("tools %v lack run_query or submit_answer", r.Tools)}
		}
		s, ok := script[askedQuestion(r)]
		call := func(name string, args any) modeltest.Reply {
			return modeltest.Reply{Calls: []modeltest.ReplyCall{{Name: name, Args: args}}}
		}
		switch {
		case !ok:
			return modeltest.Reply{Text: "I cannot tell."}
		case r.Steps() == 0:
			return call("list_tables", map[string]any{})
		case r.Steps() == 1:
			return call("run_query", map[string]any{"sql": s.sql})
		}
		return call("submit_answer", map[string]any{"sql": s.sql, "answer": s.answer})
	})
}

// askedQuestion is the question the agent asks: the first line of the
// first user message, without its "Question: " label.
func askedQuestion(r *modeltest.Request) string {
	first, _, _ := strings.Cut(r.FirstUser(), "\n")
	return strings.TrimPrefix(first, "Question: ")
}

// seenLog says, a line per request the fake was sent, the step and what the
// last tool said.
func seenLog(fake *modeltest.Server) string {
	var lines []string
	for _, r := range fake.Requests() {
		last := ""
		for _, m := range r.Messages {
			if m.Role == "tool" {
				last = m.Content
			}
		}
		lines = append(lines, fmt.Sprintf("step %d after: %s", r.Steps(), last))
	}
	return mcptest.Unmark(strings.Join(lines, "\n"))
}

var testBinaryOnce sync.Once

// useTestBinary makes ask start the test binary as its server, acting as
// sqlmcp (see TestMain).
func useTestBinary() {
	testBinaryOnce.Do(func() {
		orig := serverCommand
		serverCommand = func(settings []setting) (*exec.Cmd, error) {
			cmd, err := orig(settings)
			if err == nil {
				cmd.Env = append(cmd.Env, "SQLMCP_TEST_BE_MAIN=1")
			}
			return cmd, err
		}
	})
}

// runAsk runs `sqlmcp ask args...` through run, with env as the whole
// environment and stdin as its input.
func runAsk(t testing.TB, env map[string]string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	useTestBinary()
	var out, errOut bytes.Buffer
	err = run(t.Context(), append([]string{"ask"}, args...), strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return out.String(), errOut.String(), err
}

// fakeFlags returns the flags that point ask at fake.
func fakeFlags(fake *modeltest.Server) []string {
	return []string{"--base-url", fake.BaseURL(), "--model", "fake-1"}
}

func TestAsk(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	path := dbtest.SQLiteFile(t)
	want := dbtest.Fingerprint(t, path)
	stdout, stderr, err := runAsk(t, nil, "", append(fakeFlags(fake), "--db", path, citiesQuestion)...)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	if stdout != citiesAnswer {
		t.Errorf("got\n%s\nwant\n%s", stdout, citiesAnswer)
	}
	if n := fake.Calls(); n != 3 {
		t.Errorf("the model was called %d times, want 3", n)
	}
	// The model read each tool's result.
	seen := seenLog(fake)
	for _, w := range []string{"step 1 after: 7 tables and views:", `- "Order Items" (table, 5 rows`, "step 2 after: <data-ID>\ncity | customers\nLondon | 2"} {
		if !strings.Contains(seen, w) {
			t.Errorf("the model was not sent %q; it saw:\n%s", w, seen)
		}
	}
	if stderr != "" {
		t.Errorf("stderr without --verbose: %q", stderr)
	}
	if dbtest.Fingerprint(t, path) != want {
		t.Error("the database changed")
	}
}

func TestAskJSON(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	// Everything from the environment this time.
	env := map[string]string{"SQLMCP_DB": dbtest.SQLiteFile(t), "SQLMCP_BASE_URL": fake.BaseURL(), "OPENAI_MODEL": "fake-1", "SQLMCP_JSON": "true"}
	stdout, stderr, err := runAsk(t, env, "", citiesQuestion)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	var got struct {
		Question, SQL, Answer, Model string
		Submitted                    bool
		Columns                      []string
		Rows                         [][]any
		RowCount                     int `json:"row_count"`
		Turns                        int
		Tokens                       struct{ Input, Output int }
		Seconds                      *float64
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || strings.Count(strings.TrimSpace(stdout), "\n") > 0 {
		t.Fatalf("want one JSON object on one line, got %v:\n%s", err, stdout)
	}
	s := script[citiesQuestion]
	if got.Question != citiesQuestion || got.SQL != s.sql || got.Answer != s.answer || !got.Submitted || got.Model != "openai:fake-1" {
		t.Errorf("got %+v", got)
	}
	if fmt.Sprint(got.Columns) != "[city customers]" || fmt.Sprint(got.Rows) != "[[London 2] [Austin 1] [New York 1]]" || got.RowCount != 3 {
		t.Errorf("got columns %v, rows %v, row count %d", got.Columns, got.Rows, got.RowCount)
	}
	if in, out := 3*modeltest.PromptTokens, 3*modeltest.CompletionTokens; got.Turns != 3 || got.Tokens.Input != in || got.Tokens.Output != out || got.Seconds == nil {
		t.Errorf("got turns %d, tokens %+v, seconds %v; want 3, %d in and %d out, some seconds", got.Turns, got.Tokens, got.Seconds, in, out)
	}
}

func TestAskStartErrors(t *testing.T) {
	t.Parallel()
	path := dbtest.SQLiteFile(t)
	key := map[string]string{"OPENAI_API_KEY": "sk-test"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no key or endpoint", []string{"--db", path, "q"}, nil, "no model to ask: set ANTHROPIC_API_KEY for Claude, or OPENAI_API_KEY for OpenAI, or pass --base-url for a local OpenAI-compatible server such as ollama (--base-url http://localhost:11434/v1"},
		{"anthropic without a key", []string{"--db", path, "--provider", "anthropic", "q"}, key, "no model to ask: set ANTHROPIC_API_KEY"},
		{"unknown provider", []string{"--db", path, "--provider", "llama", "q"}, key, `--provider "llama": use anthropic or openai`},
		{"endpoint without a model", []string{"--db", path, "--base-url", "http://localhost:11434/v1", "q"}, nil, "name the model that server runs with --model"},
		{"no database", []string{"q"}, key, "no database: pass --db PATH (or set SQLMCP_DB), --config FILE, --demo for the bundled demo, or --server URL"},
		{"db and demo", []string{"--db", path, "--demo", "q"}, key, "give --db or --demo, not both"},
		{"server and db", []string{"--server", "http://127.0.0.1:1/mcp", "--db", path, "q"}, key, "--db is for the server ask starts"},
		{"token without server", []string{"--db", path, "--token", "abc", "q"}, key, "--token is for --server"},
		{"server not a URL", []string{"--server", "127.0.0.1:8080", "q"}, key, "is not an http:// or https:// URL"},
		{"chart type", []string{"--db", path, "--chart", "c.jpg", "q"}, key, `--chart "c.jpg": the file must end in .svg or .png`},
		{"no turns", []string{"--db", path, "--max-turns", "0", "q"}, key, "--max-turns must be 1 or more"},
		{"bad env", []string{"--db", path, "q"}, map[string]string{"OPENAI_API_KEY": "k", "SQLMCP_MAX_TURNS": "many"}, `SQLMCP_MAX_TURNS="many" is not a valid --max-turns value`},
		{"serve's checks", []string{"--db", path, "--max-rows", "5000", "q"}, key, "--max-rows 5000 is more than --max-rows-limit 1000"},
		{"unknown flag", []string{"--bogus"}, key, "flag provided but not defined: -bogus"},
		{"missing file, said by the server", []string{"--db", "/no/such.db", "q"}, key, "no such database file: /no/such.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runAsk(t, tt.env, "", tt.args...)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error (exit status 2)", err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want one line containing %q", err, tt.want)
			}
		})
	}
}

func TestAskFlags(t *testing.T) {
	env := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant", "SQLMCP_MAX_TURNS": "3", "SQLMCP_HINT": "from env", "SQLMCP_TIMEOUT": "2s",
		"SQLMCP_DEMO": "true", "SQLMCP_HTTP": "0.0.0.0:80",
	}
	cfg, err := parseAsk([]string{"how", "many", "--max-turns", "5", "schools?", "--cache-dir", "/tmp/c"}, io.Discard, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.question != "how many schools?" || cfg.maxTurns != 5 || cfg.hint != "from env" {
		t.Errorf("got question %q, max turns %d, hint %q; want the words joined, 5 (the flag wins), the env's hint", cfg.question, cfg.maxTurns, cfg.hint)
	}
	want := " --cache-dir=/tmp/c --demo=true --timeout=2s --log-level=warn"
	if got := describeSettings(cfg.server.settings); got != want {
		t.Errorf("the server's settings: got %q, want %q", got, want)
	}
	cmd, err := serverCommand(cfg.server.settings)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, "SQLMCP_") && kv != "SQLMCP_TEST_BE_MAIN=1" {
			got = append(got, kv)
		}
	}
	if fmt.Sprint(got) != "[SQLMCP_CACHE_DIR=/tmp/c SQLMCP_DEMO=true SQLMCP_TIMEOUT=2s SQLMCP_LOG_LEVEL=warn]" {
		t.Errorf("the server's SQLMCP_ variables: got %q, want only its settings", got)
	}
	if got := describeSettings([]setting{{"db", "postgres://ro:secret@db:5432/shop"}}); got != " --db=postgres://ro:xxxxx@db:5432/shop" {
		t.Errorf("a database URL with a password: got %q", got)
	}
	if m := cfg.model; m.Name() != "anthropic:claude-haiku-5-5" {
		t.Errorf("got model %s, want Claude Haiku from ANTHROPIC_API_KEY", m.Name())
	}
	var help bytes.Buffer
	if cfg, err := parseAsk([]string{"--help"}, &help, func(string) string { return "" }); cfg != nil || err != nil || !strings.Contains(help.String(), "-max-turns") {
		t.Errorf("--help: got %v, %v, %q", cfg, err, help.String())
	}
}

func TestAskChartAndTrace(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	dir := t.TempDir()
	svg, trace := filepath.Join(dir, "cities.svg"), filepath.Join(dir, "trace.jsonl")
	stdout, stderr, err := runAsk(t, nil, "", append(fakeFlags(fake), "--db", dbtest.SQLiteFile(t), "--chart", svg, "--trace", trace, citiesQuestion)...)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	if !strings.HasSuffix(stdout, "(3 rows)\nChart: "+svg+"\n") {
		t.Errorf("the output does not name the chart:\n%s", stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, new(struct{})); err != nil || strings.Count(string(b), `class="bar"`) != 3 || !strings.Contains(string(b), ">New York<") {
		t.Errorf("want an SVG of 3 bars naming the cities (%v):\n%s", err, b)
	}

	b, err = os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var kinds, tools []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct{ Kind, Name string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a trace line that is not JSON: %q", line)
		}
		kinds = append(kinds, rec.Kind)
		if rec.Kind == "tool" {
			tools = append(tools, rec.Name)
		}
	}
	if strings.Count(strings.Join(kinds, " "), "model") != 3 || fmt.Sprint(tools) != "[list_tables run_query submit_answer]" {
		t.Errorf("trace: got kinds %v, tools %v; want 3 model calls and the 3 tool calls", kinds, tools)
	}

	// A result that makes no chart says why, and the answer still prints.
	png := filepath.Join(dir, "orders.png")
	stdout, stderr, err = runAsk(t, nil, "", append(fakeFlags(fake), "--db", dbtest.SQLiteFile(t), "--chart", png, ordersQuestion)...)
	if err != nil || !strings.Contains(stdout, "There are 4 orders.") {
		t.Fatalf("got %v, %q", err, stdout)
	}
	if want := "sqlmcp: no chart: a chart needs one label column and one or two numeric columns; this result has 1 numeric column (orders)\n"; stderr != want {
		t.Errorf("stderr: got %q, want %q", stderr, want)
	}
	if _, err := os.Stat(png); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a chart file was written: %v", err)
	}
}

func TestAskCache(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	path, cache := dbtest.SQLiteFile(t), t.TempDir()
	args := append(fakeFlags(fake), "--db", path, "--cache", cache, "--json", citiesQuestion)
	first, _, err := runAsk(t, nil, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.Calls(); n != 3 {
		t.Fatalf("the first run made %d model calls, want 3", n)
	}
	second, stderr, err := runAsk(t, nil, "", args...)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	if n := fake.Calls(); n != 3 {
		t.Errorf("the rerun made %d model calls, want none", n-3)
	}
	var a, b map[string]any
	json.Unmarshal([]byte(first), &a)
	json.Unmarshal([]byte(second), &b)
	delete(a, "seconds")
	delete(b, "seconds")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the rerun answered differently:\n%v\n%v", a, b)
	}
}

func TestAskInteractive(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	stdin := citiesQuestion + "\n\n" + ordersQuestion + "\n"
	stdout, stderr, err := runAsk(t, nil, stdin, append(fakeFlags(fake), "--db", dbtest.SQLiteFile(t))...)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	want := citiesAnswer + "\n" + `There are 4 orders.

SQL:
  SELECT count(*) AS orders FROM "order"

 orders
--------
      4
(1 row)
`
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
	if n := fake.Calls(); n != 6 {
		t.Errorf("%d model calls, want 6", n)
	}
}

func TestAskVerbose(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	_, stderr, err := runAsk(t, nil, "", append(fakeFlags(fake), "--db", dbtest.SQLiteFile(t), "--verbose", citiesQuestion)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"model openai:fake-1 · server sqlmcp serve --db=",
		"turn 1 · model · ", "turn 1 · list_tables {} · ",
		"turn 2 · run_query SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY customers DESC, city · ",
		"turn 3 · submit_answer SELECT city, count(*) AS customers", "turn 3 · answer · London has the most customers",
		fmt.Sprintf("3 turns · %d tokens (0 cached) · ", 3*(modeltest.PromptTokens+modeltest.CompletionTokens)),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestAskNotSubmitted(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	// Two turns: list_tables, run_query, and no turn left to submit.
	stdout, _, err := runAsk(t, nil, "", append(fakeFlags(fake), "--db", dbtest.SQLiteFile(t), "--max-turns", "2", ordersQuestion)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout, "Note: the model did not submit an answer; this is the last query that ran.\n\nSQL:\n  SELECT count(*) AS orders") {
		t.Errorf("got\n%s", stdout)
	}
}

func TestAskServer(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken}, "--db", dbtest.SQLiteFile(t))
	for _, endpoint := range []string{s.base + "/mcp", s.base} {
		stdout, stderr, err := runAsk(t, map[string]string{"SQLMCP_TOKEN": envToken}, "", append(fakeFlags(fake), "--server", endpoint, citiesQuestion)...)
		if err != nil || stdout != citiesAnswer {
			t.Errorf("--server %s: got %v\n%s\nstderr: %s", endpoint, err, stdout, stderr)
		}
	}
	for token, want := range map[string]string{"": "the server wants a token: pass --token or set SQLMCP_TOKEN", "wrong-token-0123456789": "the server refused the token"} {
		_, _, err := runAsk(t, map[string]string{"SQLMCP_TOKEN": token}, "", append(fakeFlags(fake), "--server", s.base+"/mcp", citiesQuestion)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("token %q: got %v, want %q", token, err, want)
		}
	}
}

func TestPrintTable(t *testing.T) {
	var rows [][]any
	for i := range 25 {
		rows = append(rows, []any{float64(i), "line one\nline two", nil})
	}
	tests := []struct {
		name string
		ans  agent.Answer
		want string
	}{
		{"cut for the screen and by the server", agent.Answer{Columns: []string{"n", "note", "gone"}, Rows: rows, RowCount: 25, Truncated: true},
			" n  | note              | gone\n----+-------------------+------\n  0 | line one↵line two | NULL\n"},
		{"no rows", agent.Answer{Columns: []string{"id"}, Rows: nil}, " id\n----\n(0 rows)\n"},
		{"arrays and exact numbers", agent.Answer{Columns: []string{"tags", "big"}, Rows: [][]any{{[]any{"a", "b"}, "9007199254740993"}}, RowCount: 1},
			" tags      | big\n-----------+------------------\n [\"a\",\"b\"] | 9007199254740993\n(1 row)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printTable(&b, &tt.ans)
			if !strings.HasPrefix(b.String(), tt.want) {
				t.Errorf("got\n%s\nwant it to start\n%s", b.String(), tt.want)
			}
		})
	}
	var b bytes.Buffer
	printTable(&b, &tests[0].ans)
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 2+tableRows+1 ||
		lines[len(lines)-1] != "(first 20 of 25 rows; the server cut the result at 25 rows, and there are more)" {
		t.Errorf("got %d lines ending %q", len(lines), lines[len(lines)-1])
	}
}

// TestAskChoosesDatabase: ask without --database on a server of several
// databases lets the model choose one: it is shown them, names the one it
// chose on each call, and the answer says which.
func TestAskChoosesDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "sqlmcp.yaml")
	text := "sources:\n  - name: empty\n    url: " + other + "\n  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := script[citiesQuestion]
	fake := modeltest.New(t, func(r *modeltest.Request) modeltest.Reply {
		if sys := r.System(); !strings.Contains(sys, "This server has 2 databases") || !strings.Contains(sys, "- shop (sqlite, 7 tables)") {
			return modeltest.Reply{Status: http.StatusBadRequest, Text: "the system prompt does not list the databases:\n" + sys}
		}
		call := func(name string, args any) modeltest.Reply {
			return modeltest.Reply{Calls: []modeltest.ReplyCall{{Name: name, Args: args}}}
		}
		switch r.Steps() {
		case 0:
			return call("list_tables", map[string]any{"database": "shop"})
		case 1:
			return call("run_query", map[string]any{"sql": s.sql, "database": "shop"})
		}
		return call("submit_answer", map[string]any{"database": "shop", "sql": s.sql, "answer": s.answer})
	})
	stdout, stderr, err := runAsk(t, nil, "", append(fakeFlags(fake), "--config", file, "--verbose", citiesQuestion)...)
	want := strings.Replace(citiesAnswer, s.answer, s.answer+" (database shop)", 1)
	if err != nil || stdout != want {
		t.Fatalf("got %v\n%s\nwant\n%s\nstderr: %s", err, stdout, want, stderr)
	}
	if !strings.Contains(stderr, "the model chooses among the databases empty, shop") {
		t.Errorf("--verbose does not say the model chooses:\n%s", stderr)
	}
	if seen := seenLog(fake); !strings.Contains(seen, "step 1 after: 7 tables and views:") || !strings.Contains(seen, "step 2 after: <data-ID>\ncity | customers\nLondon | 2") {
		t.Errorf("the model did not read shop's tables and result:\n%s", seen)
	}
}
