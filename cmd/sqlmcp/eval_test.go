package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
)

// newFakeEval starts a fake model that answers the demo's questions with
// the SQL answer gives: as the one-shot system's reply (in a code fence)
// when the request has no tools, else by calling submit_answer at once,
// and again on every later turn.
func newFakeEval(t testing.TB, answer func(q eval.Question) string) *modeltest.Server {
	qs, err := eval.ParseQuestions(demo.Questions)
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]eval.Question{}
	for _, q := range qs {
		byText[q.Question] = q
	}
	return modeltest.New(t, func(r *modeltest.Request) modeltest.Reply {
		question := askedQuestion(r)
		q, ok := byText[question]
		if !ok {
			return modeltest.Reply{Status: http.StatusBadRequest, Text: fmt.Sprintf("unknown question %q", question)}
		}
		sql := answer(q)
		if len(r.Tools) == 0 {
			return modeltest.Reply{Text: "```sql\n" + sql + ";\n```"}
		}
		return modeltest.Reply{Calls: []modeltest.ReplyCall{{Name: "submit_answer", Args: map[string]string{"sql": sql, "answer": "see the result"}}}}
	})
}

// evalScript answers question 1 with a write, 5 with SQL that fails, and
// the rest right when right says so, else with a wrong query.
func evalScript(right func(id int) bool) func(eval.Question) string {
	return func(q eval.Question) string {
		switch {
		case q.ID == 1:
			return "DELETE FROM schools"
		case q.ID == 5:
			return "SELECT nope FROM nowhere"
		case right(q.ID):
			return q.SQL
		}
		return "SELECT 'wrong'"
	}
}

func runEvalCmd(t testing.TB, args ...string) (string, error) {
	t.Helper()
	useTestBinary()
	var out, errOut bytes.Buffer
	err := run(t.Context(), append([]string{"eval"}, args...), strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	if err != nil {
		return out.String() + errOut.String(), err
	}
	return out.String(), nil
}

func readPredictions(t testing.TB, dir string) map[int]eval.Prediction {
	t.Helper()
	ps, err := eval.ReadPredictions(filepath.Join(dir, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]eval.Prediction{}
	for _, p := range ps {
		if _, dup := m[p.QuestionID]; dup {
			t.Errorf("question %d has two predictions", p.QuestionID)
		}
		m[p.QuestionID] = p
	}
	return m
}

func TestEval(t *testing.T) {
	t.Parallel()
	cacheDir, dir := t.TempDir(), t.TempDir()
	systems := []struct {
		name     string
		right    func(id int) bool
		parallel string
	}{
		{"oneshot", func(id int) bool { return id%3 == 0 }, "1"},
		{"agent", func(id int) bool { return id%2 == 0 }, "4"}, // answered four at a time
	}
	for _, sys := range systems {
		fake := newFakeEval(t, evalScript(sys.right))
		out := filepath.Join(dir, sys.name)
		args := []string{"--demo", "--cache-dir", cacheDir, "--system", sys.name, "--out", out, "--max-turns", "2", "--parallel", sys.parallel,
			"--base-url", fake.BaseURL(), "--model", "fake-1"}

		// The first 6 questions, then interrupted mid-line, then resumed to 12.
		if got, err := runEvalCmd(t, append(args, "--limit", "6")...); err != nil {
			t.Fatalf("%s: %v\n%s", sys.name, err, got)
		}
		if n := len(readPredictions(t, out)); n != 6 {
			t.Fatalf("%s: %d predictions after --limit 6, want 6", sys.name, n)
		}
		f, err := os.OpenFile(filepath.Join(out, "predictions.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"question_id": 6, "db_id": "de`)
		f.Close()
		before := fake.Calls()
		stdout, err := runEvalCmd(t, append(args, "--limit", "12")...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", sys.name, err, stdout)
		}
		calls := fake.Calls() - before
		preds := readPredictions(t, out)
		if len(preds) != 12 {
			t.Fatalf("%s: %d predictions after resuming to 12, want 12", sys.name, len(preds))
		}
		want := 0
		for id := range 12 {
			p := preds[id]
			right := id != 1 && id != 5 && sys.right(id)
			if right {
				want++
			}
			if p.Correct != right || p.DB != "demo" || p.Difficulty == "" || p.Turns < 1 || p.Tokens < 110 {
				t.Errorf("%s: question %d: got %+v, want correct %v", sys.name, id, p, right)
			}
		}
		// One-shot SQL fails at scoring; the agent's fails when submitted,
		// so the agent ends with no SQL that ran.
		wantKind := map[string]string{"oneshot": "sql error", "agent": "no sql"}[sys.name]
		if p := preds[5]; p.ErrorKind != wantKind {
			t.Errorf("%s: failing SQL: got %+v, want error kind %q", sys.name, p, wantKind)
		}
		switch p := preds[1]; sys.name {
		case "oneshot":
			// The scorer's guard refuses the write.
			if p.ErrorKind != "refused" || p.Refused != 1 || p.SQL != "DELETE FROM schools" {
				t.Errorf("oneshot: a write: got %+v", p)
			}
			if calls != 6 {
				t.Errorf("oneshot: resuming made %d model calls, want 6 (one a question)", calls)
			}
		case "agent":
			// The server refused both submissions; no query ran.
			if p.ErrorKind != "no sql" || p.Refused != 2 || p.Turns != 2 {
				t.Errorf("agent: a write: got %+v", p)
			}
		}

		var s eval.Summary
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.System != sys.name || s.Model != "openai:fake-1" || s.Questions != 12 || s.Correct != want ||
			s.ByDatabase["demo"].Correct != want || s.ValidSQL != 10 || s.Errors[wantKind] < 1 {
			t.Errorf("%s: summary.json: got %s", sys.name, b)
		}
		easy := s.ByDifficulty["easy"]
		if easy == nil || easy.Questions != 12 {
			t.Errorf("%s: by difficulty: got %s", sys.name, b)
		}
		for _, w := range []string{"system " + sys.name + " · model openai:fake-1", fmt.Sprintf("accuracy %.2f %% (%d of 12)", 100*float64(want)/12, want),
			"  easy        ", "  demo    ", "valid SQL 83.33 % (10 of 12)", "errors: "} {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: the summary lacks %q:\n%s", sys.name, w, stdout)
			}
		}

		// The same command again makes no model calls.
		before = fake.Calls()
		if again, err := runEvalCmd(t, append(args, "--limit", "12")...); err != nil || again != stdout {
			t.Errorf("%s: rerun: got %v\n%s\nwant\n%s", sys.name, err, again, stdout)
		}
		if n := fake.Calls() - before; n != 0 {
			t.Errorf("%s: the rerun made %d model calls, want none", sys.name, n)
		}
	}

	// Questions 0-11: oneshot right on 0, 3, 6, 9; agent on 0, 2, 4, 6, 8, 10.
	stdout, err := runEvalCmd(t, "compare", filepath.Join(dir, "oneshot"), filepath.Join(dir, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"12 shared questions · A 33.33 % · B 50.00 %",
		"both right 2 · only A 2 · only B 4 · neither 4",
		"McNemar's exact test on the 6 discordant pairs: p = 0.6875", // 2 * (1+6+15)/64
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("compare lacks %q:\n%s", w, stdout)
		}
	}
}

func TestEvalCache(t *testing.T) {
	t.Parallel()
	fake := newFakeEval(t, evalScript(func(int) bool { return true }))
	dir, cacheDir := t.TempDir(), t.TempDir()
	args := []string{"--demo", "--cache-dir", cacheDir, "--system", "oneshot", "--limit", "4", "--cache", filepath.Join(dir, "cache"),
		"--base-url", fake.BaseURL(), "--model", "fake-1"}
	first, err := runEvalCmd(t, append(args, "--out", filepath.Join(dir, "a"))...)
	if err != nil || fake.Calls() != 4 {
		t.Fatalf("got %v, %d calls:\n%s", err, fake.Calls(), first)
	}
	second, err := runEvalCmd(t, append(args, "--out", filepath.Join(dir, "b"))...)
	if err != nil || fake.Calls() != 4 {
		t.Errorf("a new run with --cache: got %v, %d more calls, want none", err, fake.Calls()-4)
	}
	timeless := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "mean ") && !strings.HasPrefix(l, "predictions: ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if timeless(first) != timeless(second) {
		t.Errorf("a cached run summed up differently:\n%s\n%s", first, second)
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no questions", []string{"--base-url", "http://x/v1", "--model", "m"}, "no questions: pass --questions FILE with --db-root DIR, --dsn-template URL or --db, or --demo"},
		{"demo and questions", []string{"--demo", "--questions", "q.json", "--base-url", "http://x/v1", "--model", "m"}, "--demo brings its own questions"},
		{"demo and a template", []string{"--demo", "--dsn-template", "postgres://h/{db_id}", "--base-url", "http://x/v1", "--model", "m"}, "--demo brings its own questions"},
		{"unknown system", []string{"--demo", "--system", "expert"}, `--system "expert": use oneshot, agent or experienced`},
		{"experienced without notes", []string{"--demo", "--system", "experienced"}, "no notes: pass --notes DIR"},
		{"template for sqlite", []string{"--questions", "q.json", "--dsn-template", "/data/{db_id}.sqlite"}, "--dsn-template is for database servers: a postgres:// or mysql:// URL"},
		{"db and a template", []string{"--questions", "q.json", "--db", "mysql://h/d", "--dsn-template", "mysql://h/{db_id}"}, "give --db (one database for every question), --dsn-template or --db-root (one a db_id), not two"},
		{"db and a root", []string{"--questions", "q.json", "--db", "x.sqlite", "--db-root", "dbs"}, "not two (--db may come from SQLMCP_DB)"},
		{"demo and its folders", []string{"--demo", "--db-root", "dbs"}, "--demo brings its own questions"},
		{"no model", []string{"--demo"}, "no model to ask"},
		{"missing database", []string{"--questions", "../../demo/questions.json", "--db-root", t.TempDir(), "--base-url", "http://x/v1", "--model", "m"}, "question 0: no database"},
		{"compare wants two", []string{"compare", "a"}, "eval compare wants two run directories"},
		{"compare without predictions", []string{"compare", t.TempDir(), t.TempDir()}, "eval compare: no "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runEvalCmd(t, tt.args...)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v (%s), want a usage error containing %q", err, out, tt.want)
			}
		})
	}
}
