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
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
)

// wireProvider is one model API's wire protocol, with how ask is pointed
// at a fake of it and what ask must send it.
type wireProvider struct {
	modeltest.Provider
	// env and args point ask at a fake whose API root is url.
	env  map[string]string
	args func(url string) []string
	// check returns what ask sent wrong beyond the wire rules: the key
	// from env, the model from args.
	check func(body map[string]any, hdr http.Header) error
}

var anthropicWire = wireProvider{
	Provider: modeltest.Anthropic,
	env:      map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"},
	args: func(url string) []string {
		return []string{"--provider", "anthropic", "--base-url", url, "--model", "claude-fake"}
	},
	check: func(body map[string]any, hdr http.Header) error {
		// The API takes the key as x-api-key or, as this SDK sends it, a
		// bearer token.
		if hdr.Get("X-Api-Key") != "sk-ant-test" && hdr.Get("Authorization") != "Bearer sk-ant-test" {
			return fmt.Errorf("x-api-key %q, authorization %q: want the key from ANTHROPIC_API_KEY", hdr.Get("X-Api-Key"), hdr.Get("Authorization"))
		}
		if m := body["model"]; m != "claude-fake" {
			return fmt.Errorf("model %v, want claude-fake", m)
		}
		return nil
	},
}

var openAIWire = wireProvider{
	Provider: modeltest.OpenAI,
	env:      map[string]string{"OPENAI_API_KEY": "sk-openai-test"},
	args: func(url string) []string {
		return []string{"--provider", "openai", "--base-url", url, "--model", "fake-1"}
	},
	check: func(body map[string]any, hdr http.Header) error {
		if got := hdr.Get("Authorization"); got != "Bearer sk-openai-test" {
			return fmt.Errorf("authorization %q, want the key from OPENAI_API_KEY", got)
		}
		if m := body["model"]; m != "fake-1" {
			return fmt.Errorf("model %v, want fake-1", m)
		}
		return nil
	},
}

var wireProviders = []wireProvider{anthropicWire, openAIWire}

// newWireFake starts a fake of p's API, scripted with the turns it
// answers in order, that also refuses a request without the key and model
// ask was given, a system prompt, run_query and submit_answer.
func newWireFake(t *testing.T, p wireProvider, script ...modeltest.Reply) *modeltest.Fake {
	return modeltest.NewFake(t, p.Provider, &modeltest.FakeOptions{Check: func(body map[string]any, hdr http.Header) error {
		if err := p.check(body, hdr); err != nil {
			return err
		}
		tools := slices.Sorted(maps.Keys(p.Tools(body)))
		if !slices.Contains(tools, "run_query") || !slices.Contains(tools, "submit_answer") {
			return fmt.Errorf("tools %v lack run_query or submit_answer", tools)
		}
		if p.System(body) == "" {
			return fmt.Errorf("no system prompt")
		}
		return nil
	}}, script...)
}

// Reading decoded JSON.

func jObj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func jArr(v any) []any          { a, _ := v.([]any); return a }
func jStr(v any) string         { s, _ := v.(string); return s }

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
	turns    []modeltest.Reply
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
func wantResults(t *testing.T, p wireProvider, req map[string]any, want ...modeltest.ToolResult) {
	t.Helper()
	got := p.Results(req)
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
		turns:    []modeltest.Reply{modeltest.Submit("s1", ordersSQL, "There are 4 orders.")},
		want:     "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 1) {
				if q := p.Question(reqs[0]); q != "Question: How many orders are there?" {
					t.Errorf("the question was sent as %q", q)
				}
				if r := p.Results(reqs[0]); len(r) != 0 {
					t.Errorf("tool results before any call: %+v", r)
				}
			}
		},
	},
	{
		name:     "wrong column fixed",
		question: "Which cities do our customers live in?",
		turns: []modeltest.Reply{
			modeltest.Turn(modeltest.Say("Let me count customers by town."), modeltest.Query("q1", "SELECT town, count(*) FROM customers GROUP BY town")),
			modeltest.Query("q2", citiesSQL),
			modeltest.Submit("s1", citiesSQL, "London has the most customers (2); Austin and New York have one each."),
		},
		want: citiesAnswer,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 3) {
				wantResults(t, p, reqs[1], modeltest.ToolResult{ID: "q1", IsError: true, Text: "no such column: town"})
				wantResults(t, p, reqs[2], modeltest.ToolResult{ID: "q2", Text: "city | customers\nLondon | 2"})
			}
		},
	},
	{
		name:     "empty result double-checked",
		question: "Which customers live in Paris?",
		turns: []modeltest.Reply{
			modeltest.Submit("s1", parisSQL, "No customers live in Paris."),
			modeltest.Turn(modeltest.Say("Checked: the city is spelled as in the data."), modeltest.Submit("s2", parisSQL, "No customers live in Paris.")),
		},
		want: "No customers live in Paris.\n\nSQL:\n  " + parisSQL + "\n\n name\n------\n(0 rows)\n",
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				// Not an error: a request to look again.
				wantResults(t, p, reqs[1], modeltest.ToolResult{ID: "s1", Text: wantEmptyNote})
			}
		},
	},
	{
		name:     "turn limit falls back to the last good query",
		question: "How many orders are there?",
		args:     []string{"--max-turns", "2"},
		turns: []modeltest.Reply{
			modeltest.Query("q1", ordersSQL),
			modeltest.Turn(modeltest.Say("Let me check the statuses too."), modeltest.Query("q2", `SELECT state FROM "order"`)),
		},
		want: notSubmittedNote + "Let me check the statuses too.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				wantResults(t, p, reqs[1], modeltest.ToolResult{ID: "q1", Text: "orders\n4"})
				if got := p.UserText(reqs[1]); got != wantLastTurnNote {
					t.Errorf("the last turn's note: got %q, want %q", got, wantLastTurnNote)
				}
				if got := p.UserText(reqs[0]); strings.Contains(got, "last turn") {
					t.Errorf("the first turn was told it is the last: %q", got)
				}
			}
		},
	},
	{
		name:     "plain text reminded",
		question: "How many orders are there?",
		turns: []modeltest.Reply{
			modeltest.Say("There are 4 orders."),
			modeltest.Submit("s1", ordersSQL, "There are 4 orders."),
		},
		want: "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				if got := p.UserText(reqs[1]); !strings.HasPrefix(got, wantReminderNote) {
					t.Errorf("after plain text the model was sent %q, want the reminder %q…", got, wantReminderNote)
				}
				if r := p.Results(reqs[1]); len(r) != 0 {
					t.Errorf("tool results after plain text: %+v", r)
				}
			}
		},
	},
	{
		name:     "parallel tool calls",
		question: "How many orders are there?",
		turns: []modeltest.Reply{
			modeltest.Turn(modeltest.Query("qa", ordersSQL), modeltest.Query("qb", `SELECT total FROM "order"`), modeltest.Use("qc", "list_tables", map[string]any{})),
			modeltest.Submit("s1", ordersSQL, "There are 4 orders."),
		},
		want: "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if !wantRequests(t, reqs, 2) {
				return
			}
			// All three results, in the calls' order, in one message.
			wantResults(t, p, reqs[1],
				modeltest.ToolResult{ID: "qa", Text: "orders\n4"},
				modeltest.ToolResult{ID: "qb", IsError: true, Text: "no such column: total"},
				modeltest.ToolResult{ID: "qc", Text: `"Order Items" (table, 5 rows`})
			msgs := jArr(reqs[1]["messages"])
			switch p.Name {
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
		turns: []modeltest.Reply{
			modeltest.Query("q1", ordersSQL),
			modeltest.Submit("s1", ordersSQL, "There are 4 orders."),
		},
		want: "There are 4 orders.\n" + ordersTable,
		transcript: func(t *testing.T, p wireProvider, reqs []map[string]any) {
			if wantRequests(t, reqs, 2) {
				wantResults(t, p, reqs[1], modeltest.ToolResult{ID: "q1", Text: "orders\n4"})
			}
		},
	},
}

func TestAskScenarios(t *testing.T) {
	t.Parallel()
	for _, p := range wireProviders {
		for _, sc := range askScenarios {
			t.Run(p.Name+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				fake := newWireFake(t, p, sc.turns...)
				env := map[string]string{}
				for k, v := range p.env {
					env[k] = v
				}
				args := p.args(fake.BaseURL())
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
				reqs := fake.Bodies()
				for i, req := range reqs {
					if q := p.Question(req); !strings.HasPrefix(q, "Question: "+sc.question) {
						t.Errorf("request %d starts with %q, not the question", i+1, q)
					}
				}
				sc.transcript(t, p, reqs)
				if n := fake.Left(); n != 0 {
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
		modeltest.Turn(modeltest.Query("q1", "SELECT town FROM customers"), modeltest.Query("q2", ordersSQL)),
		modeltest.Submit("s1", ordersSQL, "There are 4 orders."))
	args := append(anthropicWire.args(fake.BaseURL()), "--db", dbtest.SQLiteFile(t), "How many orders are there?")
	stdout, stderr, err := runAsk(t, anthropicWire.env, "", args...)
	if err != nil || stdout != "There are 4 orders.\n"+ordersTable {
		t.Fatalf("got %v\n%s\nstderr: %s", err, stdout, stderr)
	}
	reqs := fake.Bodies()
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
		t.Run(p.Name+"/no key", func(t *testing.T) {
			t.Parallel()
			// The other provider's key does not count.
			env := map[string]string{}
			for _, o := range wireProviders {
				if o.Name != p.Name {
					for k, v := range o.env {
						env[k] = v
					}
				}
			}
			stdout, _, err := runAsk(t, env, "", "--provider", p.Name, "--db", path, "How many orders are there?")
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
