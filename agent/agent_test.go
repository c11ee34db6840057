package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
)

// asked is one question put to an agent over a fake model and real sqlmcp.
type asked struct {
	f   *fake
	a   *agent.Agent
	ans *agent.Answer
	err error
}

// ask starts sqlmcp and a fake model scripted with turns, and asks one
// question. o may be nil; its Model is filled in.
func ask(t *testing.T, p provider, o *agent.Options, question, hint string, turns ...modeltest.Reply) asked {
	t.Helper()
	f := newFake(t, p, turns...)
	return askOn(t, f, serve(t, nil), o, question, hint)
}

func askOn(t *testing.T, f *fake, cs *mcp.ClientSession, o *agent.Options, question, hint string) asked {
	t.Helper()
	if o == nil {
		o = &agent.Options{}
	}
	if o.Model == nil {
		o.Model = f.model()
	}
	a, err := agent.New(t.Context(), cs, o)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := a.Ask(t.Context(), question, hint)
	return asked{f: f, a: a, ans: ans, err: err}
}

// eachProvider runs test once per wire protocol.
func eachProvider(t *testing.T, test func(t *testing.T, p provider)) {
	for _, p := range providers {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			test(t, p)
		})
	}
}

const shippedSQL = `SELECT count(*) AS shipped FROM "order" WHERE status = 'shipped'`

// straight is a run that explores, queries, and submits.
var straight = []modeltest.Reply{
	turn(text("Let me see how statuses are written."), use("tu_1", "distinct_values", `{"table":"order","column":"status"}`)),
	turn(query("tu_2", shippedSQL)),
	turn(submit("tu_3", shippedSQL, "Two orders have shipped.")),
}

func TestStraightRun(t *testing.T) {
	// Keys and URLs in the environment must not reach the model clients:
	// only cmd/sqlmcp reads the environment.
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	for _, p := range providers {
		t.Run(p.Name, func(t *testing.T) {
			r := ask(t, p, nil, "How many orders have shipped?", "shipped means status 'shipped'", straight...)
			if r.err != nil {
				t.Fatal(r.err)
			}
			want := &agent.Answer{
				Question: "How many orders have shipped?", Hint: "shipped means status 'shipped'",
				SQL: shippedSQL, Text: "Two orders have shipped.",
				Columns: []string{"shipped"}, ColumnTypes: []string{""}, Rows: [][]any{{2.0}}, RowCount: 1,
				Turns: 3, Submitted: true,
			}
			switch p.Name {
			case "anthropic":
				want.Usage = agent.Usage{Input: 300, Output: 60, CacheWrite: 1000, CacheRead: 2000}
			case "openai":
				want.Usage = agent.Usage{Input: 300, Output: 60, CacheRead: 3000}
			}
			if diff := cmp.Diff(want, r.ans, cmpAnswer); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if r.ans.Seconds <= 0 {
				t.Errorf("Seconds = %v, want the wall time", r.ans.Seconds)
			}

			reqs := r.f.Bodies()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls, want 3", len(reqs))
			}
			for i, h := range r.f.Headers() {
				if got := h.Get("Authorization"); got != "Bearer test-key" {
					t.Errorf("request %d: Authorization %q, want the key from the options", i+1, got)
				}
			}
			first := reqs[0]
			sys := p.System(first)
			for _, want := range []string{
				"submit_answer", "distinct_values", "The database is SQLite", `double quotes ("Order Items", "order")`,
				"This server gives read-only access to one sqlite database", // the server's instructions
				`- "Order Items" (table, 5 rows, 3 columns)`,                // the table list
				"Every table, described", "- customer_id INTEGER NOT NULL",  // described columns
				"at most 8 turns",
			} {
				if !strings.Contains(sys, want) {
					t.Errorf("the system prompt lacks %q:\n%s", want, sys)
				}
			}
			if got := p.UserText(first); got != "Question: How many orders have shipped?\nHint: shipped means status 'shipped'" {
				t.Errorf("first user message %q", got)
			}
			tools := p.Tools(first)
			var names []string
			for n := range tools {
				names = append(names, n)
			}
			slices.Sort(names)
			wantNames := []string{"describe_table", "distinct_values", "list_tables", "run_query", "sample_values", "search_schema", "submit_answer"}
			if diff := cmp.Diff(wantNames, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			sub := tools["submit_answer"]
			if sub["additionalProperties"] != false || !slices.Equal(toStrings(sub["required"]), []string{"sql", "answer"}) ||
				len(obj(sub["properties"])) != 2 {
				t.Errorf("submit_answer's schema is not strict: %v", sub)
			}
			if p.Name == "openai" && sub["x-strict"] != true {
				t.Errorf("submit_answer is not sent with strict: true")
			}
			if rq := tools["run_query"]; !slices.Contains(toStrings(rq["required"]), "sql") {
				t.Errorf("run_query's schema did not come from the server: %v", rq)
			}
			if p.Name == "anthropic" {
				if obj(arr(first["system"])[0])["cache_control"] == nil {
					t.Error("no cache_control on the system prompt")
				}
				ts := arr(first["tools"])
				if obj(ts[len(ts)-1])["cache_control"] == nil {
					t.Error("no cache_control on the last tool")
				}
			}

			got := p.Results(reqs[1])
			if len(got) != 1 || got[0].ID != "tu_1" || got[0].IsError || !strings.Contains(got[0].Text, "- 'shipped': 2") {
				t.Errorf("request 2's tool results: %+v", got)
			}
			got = p.Results(reqs[2])
			if len(got) != 1 || got[0].ID != "tu_2" || got[0].IsError || mcptest.Unmark(got[0].Text) != "<data-ID>\nshipped\n2\n</data-ID>\n(1 row)\n" {
				t.Errorf("request 3's tool results: %+v", got)
			}
		})
	}
}

var cmpAnswer = cmp.Options{
	cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Seconds" }, cmp.Ignore()),
}

func toStrings(v any) []string {
	var out []string
	for _, s := range arr(v) {
		out = append(out, str(s))
	}
	return out
}

func TestFailingToolFixed(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		fixed := "SELECT email FROM customers WHERE id = 1"
		r := ask(t, p, nil, "What is Ada's email?", "",
			turn(query("q1", "SELECT mail FROM customers WHERE id = 1")),
			turn(query("q2", fixed)),
			turn(submit("q3", fixed, "ada@example.com")),
		)
		if r.err != nil {
			t.Fatal(r.err)
		}
		reqs := r.f.Bodies()
		got := p.Results(reqs[1])
		if len(got) != 1 || !got[0].IsError || !strings.Contains(got[0].Text, "no such column: mail") ||
			!strings.Contains(got[0].Text, "customers.email") {
			t.Errorf("the error the model read: %+v", got)
		}
		if p.Name == "anthropic" {
			// The wire form: is_error set on the tool_result block.
			msgs := arr(reqs[1]["messages"])
			b := obj(arr(obj(msgs[len(msgs)-1])["content"])[0])
			if b["is_error"] != true {
				t.Errorf("tool_result block %v, want is_error true", b)
			}
		}
		if got := p.Results(reqs[2]); len(got) != 1 || got[0].IsError {
			t.Errorf("the fixed query's result: %+v", got)
		}
		if r.ans.SQL != fixed || !r.ans.Submitted || r.ans.Rows[0][0] != "ada@example.com" {
			t.Errorf("answer %+v", r.ans)
		}
	})
}

func TestParallelToolCalls(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		// Each run_query waits at a barrier until both are in flight, so
		// the test passes only if they run at the same time. The first
		// then finishes last, so the results' order must come from the
		// calls, not from completion.
		var armed atomic.Bool
		var mu sync.Mutex
		inFlight := 0
		both := make(chan struct{})
		client := mcp.NewClient(&mcp.Implementation{Name: "agent-test"}, nil)
		client.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				params, ok := req.GetParams().(*mcp.CallToolParams)
				if !armed.Load() || method != "tools/call" || !ok || params.Name != "run_query" {
					return next(ctx, method, req)
				}
				mu.Lock()
				inFlight++
				if inFlight == 2 {
					close(both)
				}
				mu.Unlock()
				select {
				case <-both:
				case <-time.After(10 * time.Second):
					t.Error("the two tool calls did not run at the same time")
				}
				res, err := next(ctx, method, req)
				if strings.Contains(params.Arguments.(map[string]any)["sql"].(string), "customers") {
					time.Sleep(100 * time.Millisecond)
				}
				return res, err
			}
		})
		f := newFake(t, p,
			turn(text("Two counts at once."),
				query("c1", "SELECT count(*) AS n FROM customers"),
				query("c2", `SELECT count(*) AS n FROM "order" WHERE status = 'new'`)),
			turn(submit("c3", "SELECT count(*) AS n FROM customers", "Four customers.")),
		)
		cs := serve(t, client)
		a, err := agent.New(t.Context(), cs, &agent.Options{Model: f.model()})
		if err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		ans, err := a.Ask(t.Context(), "How many customers are there?", "")
		armed.Store(false)
		if err != nil {
			t.Fatal(err)
		}
		got := p.Results(f.Bodies()[1])
		for i := range got {
			got[i].Text = mcptest.Unmark(got[i].Text)
		}
		want := []modeltest.ToolResult{{ID: "c1", Text: "<data-ID>\nn\n4\n</data-ID>\n(1 row)\n"}, {ID: "c2", Text: "<data-ID>\nn\n1\n</data-ID>\n(1 row)\n"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results in one message, in call order (-want +got):\n%s", diff)
		}
		if p.Name == "anthropic" {
			msgs := arr(f.Bodies()[1]["messages"])
			if len(msgs) != 3 {
				t.Errorf("%d messages, want question, calls, results", len(msgs))
			}
		}
		if !ans.Submitted || ans.Turns != 2 {
			t.Errorf("answer %+v", ans)
		}
	})
}

func TestSubmitFailingSQL(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		good := "SELECT name FROM customers ORDER BY id LIMIT 1"
		r := ask(t, p, nil, "Who was the first customer?", "",
			turn(submit("s1", "SELECT nme FROM customers ORDER BY id LIMIT 1", "Ada Lovelace")),
			turn(submit("s2", good, "Ada Lovelace")),
		)
		if r.err != nil {
			t.Fatal(r.err)
		}
		got := p.Results(r.f.Bodies()[1])
		if len(got) != 1 || !got[0].IsError || !strings.Contains(got[0].Text, "not accepted") ||
			!strings.Contains(got[0].Text, "no such column: nme") {
			t.Errorf("the failed submission's result: %+v", got)
		}
		if r.ans.SQL != good || !r.ans.Submitted || r.ans.Turns != 2 || r.ans.Rows[0][0] != "Ada Lovelace" {
			t.Errorf("answer %+v", r.ans)
		}
	})
}

func TestSubmitEmptyResult(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		t.Run("no rows, checked, submitted again", func(t *testing.T) {
			sql := "SELECT name FROM customers WHERE city = 'Paris'"
			r := ask(t, p, nil, "Who lives in Paris?", "",
				turn(submit("e1", sql, "Nobody.")),
				turn(text("I checked: nobody."), submit("e2", sql, "Nobody lives in Paris.")),
			)
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := p.Results(r.f.Bodies()[1])
			if len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Text, "returned no rows. Double-check") {
				t.Errorf("the double-check: %+v", got)
			}
			if !r.ans.Submitted || r.ans.SQL != sql || r.ans.RowCount != 0 || r.ans.Text != "Nobody lives in Paris." ||
				!slices.Equal(r.ans.Columns, []string{"name"}) {
				t.Errorf("answer %+v", r.ans)
			}
		})
		t.Run("only NULLs, checked once, then empty is accepted", func(t *testing.T) {
			empty := "SELECT email FROM customers WHERE name = 'Grace'"
			r := ask(t, p, nil, "What is Grace's email?", "",
				turn(submit("e1", "SELECT email FROM customers WHERE id = 2", "She has none.")),
				turn(submit("e2", empty, "None on file.")),
			)
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := p.Results(r.f.Bodies()[1])
			if len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Text, "returned only NULL values") {
				t.Errorf("the double-check: %+v", got)
			}
			if !r.ans.Submitted || r.ans.SQL != empty || r.ans.Turns != 2 {
				t.Errorf("answer %+v", r.ans)
			}
		})
	})
}

func TestMaxTurnsFallsBack(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		toys := "SELECT count(*) AS n FROM products WHERE category = 'toy'"
		var events []agent.Event
		r := ask(t, p, &agent.Options{MaxTurns: 3, OnEvent: func(e agent.Event) { events = append(events, e) }},
			"How many toys are there?", "",
			turn(query("m1", "SELECT count(*) AS n FROM products")),
			turn(query("m2", toys)),
			turn(query("m3", "SELECT count(*) FROM toys")),
		)
		if r.err != nil {
			t.Fatal(r.err)
		}
		reqs := r.f.Bodies()
		if len(reqs) != 3 {
			t.Fatalf("%d model calls, want MaxTurns 3", len(reqs))
		}
		if got := p.UserText(reqs[2]); !strings.Contains(got, "This is your last turn") {
			t.Errorf("the last request's note: %q", got)
		}
		if got := p.UserText(reqs[1]); strings.Contains(got, "last turn") {
			t.Errorf("the second request already says last turn: %q", got)
		}
		if !strings.Contains(p.System(reqs[0]), "at most 3 turns") {
			t.Error("the system prompt does not give the turn limit")
		}
		want := &agent.Answer{Question: "How many toys are there?", SQL: toys, Columns: []string{"n"}, ColumnTypes: []string{""},
			Rows: [][]any{{2.0}}, RowCount: 1, Turns: 3, Submitted: false, Usage: r.ans.Usage}
		if diff := cmp.Diff(want, r.ans, cmpAnswer); diff != "" {
			t.Errorf("the fallback to the last good query (-want +got):\n%s", diff)
		}
		last := events[len(events)-1]
		if last.Kind != "answer" || last.Tool != "run_query" || !strings.Contains(string(last.Args), "category") {
			t.Errorf("last event %+v, want the answer", last)
		}
	})
}

func TestPlainText(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		t.Run("one reminder, then a submission", func(t *testing.T) {
			sql := "SELECT count(*) AS n FROM customers"
			r := ask(t, p, nil, "How many customers?", "",
				turn(text("There are 4 customers.")),
				turn(submit("r1", sql, "There are 4 customers.")),
			)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if got := p.UserText(r.f.Bodies()[1]); !strings.Contains(got, "Call submit_answer") {
				t.Errorf("the reminder: %q", got)
			}
			if !r.ans.Submitted || r.ans.Turns != 2 || r.ans.SQL != sql {
				t.Errorf("answer %+v", r.ans)
			}
		})
		t.Run("text twice ends with the last good query", func(t *testing.T) {
			sql := "SELECT count(*) AS n FROM customers"
			r := ask(t, p, nil, "How many customers?", "",
				turn(query("q1", sql)),
				turn(text("4")),
				turn(text("It is 4.")),
				turn(text("never asked for")),
			)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if n := len(r.f.Bodies()); n != 3 {
				t.Errorf("%d model calls, want 3: a second plain answer ends the loop", n)
			}
			if r.ans.Submitted || r.ans.SQL != sql || r.ans.Text != "It is 4." || r.ans.Rows[0][0] != 4.0 {
				t.Errorf("answer %+v", r.ans)
			}
		})
		t.Run("no query ever ran", func(t *testing.T) {
			r := ask(t, p, nil, "How many customers?", "",
				turn(text("Maybe 4.")),
				turn(text("Probably 4.")),
			)
			if r.err == nil || !strings.Contains(r.err.Error(), "did not submit") {
				t.Errorf("got %v, %+v; want an error saying the model did not submit", r.err, r.ans)
			}
		})
	})
}

func TestBadToolCalls(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		r := ask(t, p, nil, "How many customers?", "",
			turn(use("b1", "drop_database", `{}`), use("b2", "submit_answer", `{"answer":"4"}`)),
			turn(submit("b3", "SELECT count(*) FROM customers", "4")),
		)
		if r.err != nil {
			t.Fatal(r.err)
		}
		got := p.Results(r.f.Bodies()[1])
		if len(got) != 2 || !got[0].IsError || !strings.Contains(got[0].Text, `no tool "drop_database"`) ||
			!got[1].IsError || !strings.Contains(got[1].Text, "submit_answer needs") {
			t.Errorf("results %+v", got)
		}
	})
}

func TestCache(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		dir := t.TempDir()
		first := newFake(t, p, straight...)
		r1 := askOn(t, first, serve(t, nil), &agent.Options{Model: agent.NewCache(dir, first.model())}, "How many orders have shipped?", "")
		if r1.err != nil {
			t.Fatal(r1.err)
		}
		if n := len(first.Bodies()); n != 3 {
			t.Fatalf("first run: %d model calls, want 3", n)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) != 3 {
			t.Errorf("%d cache files, want 3", len(files))
		}
		for _, name := range files {
			b, _ := os.ReadFile(name)
			var e struct {
				Model    string
				Request  *agent.Request
				Response *agent.Response
			}
			if err := json.Unmarshal(b, &e); err != nil || e.Model != first.model().Name() || e.Request == nil || e.Response == nil {
				t.Errorf("%s: %v: %.200s", name, err, b)
			}
			if !bytes.Contains(b, []byte("\n  \"request\": {")) {
				t.Errorf("%s is not indented for people", name)
			}
		}

		// The same question on a fresh server, against a model that would
		// fail any call: every reply must come from the cache.
		second := newFake(t, p)
		var trace bytes.Buffer
		r2 := askOn(t, second, serve(t, nil), &agent.Options{Model: agent.NewCache(dir, second.model()), Trace: &trace}, "How many orders have shipped?", "")
		if r2.err != nil {
			t.Fatal(r2.err)
		}
		if n := len(second.Bodies()); n != 0 {
			t.Errorf("second run: %d model calls, want 0", n)
		}
		if diff := cmp.Diff(r1.ans, r2.ans, cmpAnswer); diff != "" {
			t.Errorf("the cached run answered differently (-first +second):\n%s", diff)
		}
		if got := strings.Count(trace.String(), `"cached":true`); got != 3 {
			t.Errorf("%d model calls traced as cached, want 3:\n%s", got, trace.String())
		}
	})
}

func TestTraceAndEvents(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		var trace bytes.Buffer
		var kinds []string
		var tools []string
		r := ask(t, p, &agent.Options{Trace: &trace, OnEvent: func(e agent.Event) {
			kinds = append(kinds, e.Kind)
			if e.Kind == "tool" {
				tools = append(tools, e.Tool)
				if e.Duration <= 0 || e.Turn == 0 || !json.Valid(e.Args) {
					t.Errorf("tool event %+v", e)
				}
			}
		}}, "How many orders have shipped?", "", straight...)
		if r.err != nil {
			t.Fatal(r.err)
		}
		wantKinds := []string{"model", "tool", "model", "tool", "model", "tool", "answer"}
		if diff := cmp.Diff(wantKinds, kinds); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"distinct_values", "run_query", "submit_answer"}, tools); diff != "" {
			t.Errorf("tool events (-want +got):\n%s", diff)
		}
		var models, toolLines int
		sc := bufio.NewScanner(&trace)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("a trace line that is not JSON: %v: %s", err, sc.Text())
			}
			switch rec["kind"] {
			case "model":
				models++
				if rec["request_bytes"].(float64) < 1000 || rec["usage"] == nil || rec["response"] == nil || rec["ms"] == nil ||
					!strings.HasPrefix(str(rec["model"]), p.Name+":") {
					t.Errorf("model line %s", sc.Text())
				}
			case "tool":
				toolLines++
				if rec["name"] == "" || obj(rec["args"]) == nil || rec["result_bytes"].(float64) == 0 || rec["ms"] == nil {
					t.Errorf("tool line %s", sc.Text())
				}
			default:
				t.Errorf("a trace line of kind %v", rec["kind"])
			}
		}
		if models != 3 || toolLines != 3 {
			t.Errorf("trace: %d model lines and %d tool lines, want 3 and 3:\n%s", models, toolLines, trace.String())
		}
	})
}

func TestSchemaBudget(t *testing.T) {
	t.Parallel()
	cs := serve(t, nil)
	model := agent.NewAnthropic(agent.AnthropicOptions{BaseURL: "http://127.0.0.1:9", MaxRetries: -1}) // never called
	tests := []struct {
		name   string
		tokens int
		want   []string
		not    []string
	}{
		{"default fits every table", 0, []string{"Every table, described", "table \"SchoolStats\""}, nil},
		{"a small budget describes the first tables", 200,
			[]string{`- "SchoolStats" (table, 3 rows, 4 columns)`, "The first 3 of 7 tables, described", "view customer_totals"},
			[]string{"- customer_id INTEGER NOT NULL", "table products"}},
		{"negative lists only", -1, []string{"- products (table, 4 rows, 5 columns)", "No table is described here"}, []string{"columns:\n"}},
		{"a tiny budget cuts the list", 30, []string{"the list is cut here"}, []string{"SchoolStats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := agent.New(t.Context(), cs, &agent.Options{Model: model, SchemaTokens: tt.tokens})
			if err != nil {
				t.Fatal(err)
			}
			sys := a.System()
			for _, w := range tt.want {
				if !strings.Contains(sys, w) {
					t.Errorf("the system prompt lacks %q:\n%s", w, sys)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(sys, w) {
					t.Errorf("the system prompt has %q:\n%s", w, sys)
				}
			}
			if a.Dialect() != "sqlite" {
				t.Errorf("dialect %q", a.Dialect())
			}
		})
	}
}

func TestOpenAIWithoutKey(t *testing.T) {
	t.Parallel()
	f := newFake(t, openAIFake, turn(submit("k1", "SELECT 1 AS one", "One.")))
	m := agent.NewOpenAI(agent.OpenAIOptions{Model: "llama3.2", BaseURL: f.BaseURL(), MaxRetries: -1})
	r := askOn(t, f, serve(t, nil), &agent.Options{Model: m}, "One?", "")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := f.Headers()[0].Get("Authorization"); got != "" {
		t.Errorf("Authorization %q sent to a local server with no key", got)
	}
	if got := f.Bodies()[0]["model"]; got != "llama3.2" || m.Name() != "openai:llama3.2" {
		t.Errorf("model %v, name %s", got, m.Name())
	}
}

func TestLongResultCut(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		sql := "SELECT name, email, city FROM customers ORDER BY id"
		r := ask(t, p, &agent.Options{MaxResultBytes: 60}, "List the customers.", "",
			turn(query("l1", sql)),
			turn(submit("l2", sql, "Four customers.")),
		)
		if r.err != nil {
			t.Fatal(r.err)
		}
		got := p.Results(r.f.Bodies()[1])
		if len(got) != 1 || !strings.HasPrefix(mcptest.Unmark(got[0].Text), "<data-ID>\nname | email | city\n") || !strings.Contains(got[0].Text, "…[cut: ") ||
			strings.Contains(got[0].Text, "Dijkstra") {
			t.Errorf("the long result the model read: %+v", got)
		}
		if r.ans.RowCount != 4 || len(r.ans.Rows) != 4 {
			t.Errorf("the answer keeps every row: %+v", r.ans)
		}
	})
}

func TestPostgres(t *testing.T) {
	dsn := dbtest.PostgresDSN(t) // skips without SQLMCP_TEST_POSTGRES
	eachProvider(t, func(t *testing.T, p provider) {
		f := newFake(t, p,
			turn(query("pg1", shippedSQL)),
			turn(submit("pg2", shippedSQL, "Two orders have shipped.")),
		)
		r := askOn(t, f, serveDB(t, nil, dsn), nil, "How many orders have shipped?", "")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.a.Dialect() != "postgres" || !strings.Contains(p.System(f.Bodies()[0]), "The database is PostgreSQL") {
			t.Errorf("dialect %q; the system prompt does not say PostgreSQL", r.a.Dialect())
		}
		want := &agent.Answer{Question: "How many orders have shipped?", SQL: shippedSQL, Text: "Two orders have shipped.",
			Columns: []string{"shipped"}, ColumnTypes: []string{"bigint"}, Rows: [][]any{{2.0}}, RowCount: 1,
			Turns: 2, Submitted: true, Usage: r.ans.Usage}
		if diff := cmp.Diff(want, r.ans, cmpAnswer); diff != "" {
			t.Errorf("answer (-want +got):\n%s", diff)
		}
	})
}
