package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
	"github.com/sqlmcp/sqlmcp/notes"
)

// runCmd runs sqlmcp with args, as a user would, and returns its stdout
// (and stderr, on error).
func runCmd(t testing.TB, args ...string) (string, error) {
	t.Helper()
	useTestBinary()
	var out, errOut bytes.Buffer
	err := run(t.Context(), args, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	if err != nil {
		return out.String() + errOut.String(), err
	}
	return out.String(), nil
}

// firstTable finds the first table a describe_table text in the prompt
// names: "table schools (120 rows)".
var firstTable = regexp.MustCompile(`(?m)^(?:table|view) ("[^"]+"|\S+) \(`)

// experienceModel is a fake model for learn, explore and the three
// systems. Answering (tools offered, or asked for one-shot SQL), it gives
// a question's gold SQL when right says so, else a wrong query. Asked for a lesson, it writes one
// marked "lesson-ID". Exploring (no tools), it writes for the fragment's
// first table one good query, one that fails and one that returns nothing.
func experienceModel(t testing.TB, questions []eval.Question, right func(id int) bool) *modeltest.Server {
	byText := map[string]eval.Question{}
	for _, q := range questions {
		byText[q.Question] = q
	}
	question := func(r *modeltest.Request) (eval.Question, bool) {
		first, _, _ := strings.Cut(r.FirstUser(), "\n")
		q, ok := byText[strings.TrimPrefix(first, "Question: ")]
		return q, ok
	}
	// answer is the SQL for the request's question, or false.
	answer := func(r *modeltest.Request) (string, bool) {
		q, ok := question(r)
		if !ok {
			return "", false
		}
		if right(q.ID) {
			return q.SQL, true
		}
		return "SELECT 'wrong'", true
	}
	var explored atomic.Int64
	return modeltest.New(t, func(r *modeltest.Request) modeltest.Reply {
		switch {
		case strings.Contains(r.System(), "write one lesson"):
			q, ok := question(r)
			if !ok {
				return modeltest.Reply{Status: 400, Text: "a lesson for an unknown question"}
			}
			return modeltest.Reply{Text: fmt.Sprintf("- Lesson: check the table first (lesson-%d)", q.ID)}
		case strings.Contains(r.System(), "You write one SQL query"):
			sql, ok := answer(r)
			if !ok {
				return modeltest.Reply{Status: 400, Text: "an unknown question"}
			}
			return modeltest.Reply{Text: "```sql\n" + sql + "\n```"}
		case len(r.Tools) == 0:
			m := firstTable.FindStringSubmatch(r.FirstUser() + "\n" + r.System())
			if m == nil {
				return modeltest.Reply{Status: 400, Text: "no table in the exploring prompt"}
			}
			// Each fragment's queries differ, so none is dropped as a repeat.
			k := explored.Add(1)
			queries, _ := json.Marshal([]map[string]string{
				{"sql": fmt.Sprintf("SELECT count(*) AS n%d FROM %s", k, m[1]), "description": "how many rows " + m[1] + " has"},
				{"sql": fmt.Sprintf("SELECT no_such_column%d FROM %s", k, m[1]), "description": "a column that is not there"},
				{"sql": fmt.Sprintf("SELECT * FROM %s WHERE %d = 0", m[1], k), "description": "nothing at all"},
			})
			return modeltest.Reply{Text: "```json\n" + string(queries) + "\n```"}
		}
		sql, ok := answer(r)
		if !ok {
			return modeltest.Reply{Status: 400, Text: "an unknown question"}
		}
		return modeltest.Reply{Calls: []modeltest.ReplyCall{{Name: "submit_answer", Args: map[string]string{"sql": sql, "answer": "see the result"}}}}
	})
}

func TestLearnExploreExperienced(t *testing.T) {
	t.Parallel()
	qs, err := eval.ParseQuestions(demo.Questions)
	if err != nil {
		t.Fatal(err)
	}
	fake := experienceModel(t, qs, func(id int) bool { return id%2 == 0 })
	cacheDir, dir := t.TempDir(), t.TempDir()
	notesDir := filepath.Join(dir, "notes")
	model := []string{"--base-url", fake.BaseURL(), "--model", "fake-1"}
	learn := append([]string{"learn", "--demo", "--cache-dir", cacheDir, "--notes", notesDir, "--limit", "10", "--max-turns", "2", "--parallel", "3"}, model...)

	// Learn from questions 0-9: the even ones are solved, the odd ones wrong.
	out, err := runCmd(t, learn...)
	if err != nil {
		t.Fatalf("learn: %v\n%s", err, out)
	}
	if want := "learned from 10 questions: 5 examples, 5 lessons; 0 skipped (the gold SQL failed); 0 already in the notes"; !strings.Contains(out, want) {
		t.Errorf("learn says:\n%s\nwant %q", out, want)
	}
	book, err := notes.Load(filepath.Join(notesDir, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Examples) != 5 || len(book.Lessons) != 5 {
		t.Fatalf("notes: %d examples and %d lessons, want 5 and 5", len(book.Examples), len(book.Lessons))
	}
	for _, l := range book.Lessons {
		q := qs[l.QuestionID]
		if l.QuestionID%2 != 1 || l.Lesson != fmt.Sprintf("check the table first (lesson-%d)", l.QuestionID) ||
			l.WrongSQL != "SELECT 'wrong'" || l.SQL != q.SQL || l.Question != q.Question || l.Hint != q.Evidence {
			t.Errorf("lesson: got %+v, want the lesson beside the wrong and the right SQL of question %d", l, l.QuestionID)
		}
	}
	for _, x := range book.Examples {
		if x.QuestionID%2 != 0 || x.SQL != qs[x.QuestionID].SQL {
			t.Errorf("example: got %+v, want a solved question with its SQL", x)
		}
	}
	// A person reads them as Markdown.
	text, err := os.ReadFile(filepath.Join(notesDir, "demo", notes.LessonsFile))
	if err != nil || !strings.Contains(string(text), "## Question 3\n") || !strings.Contains(string(text), "lesson-3") {
		t.Errorf("lessons.md: %v\n%s", err, text)
	}

	// A rerun resumes: every question is known, and no model is called.
	before := fake.Calls()
	if out, err := runCmd(t, learn...); err != nil || !strings.Contains(out, "10 already in the notes") || fake.Calls() != before {
		t.Errorf("learn again: %v, %d model calls\n%s", err, fake.Calls()-before, out)
	}

	// Explore keeps only the queries that ran and returned rows.
	out, err = runCmd(t, append([]string{"explore", "--demo", "--cache-dir", cacheDir, "--notes", notesDir, "--max-fragments", "12", "--per-cluster", "20"}, model...)...)
	if err != nil {
		t.Fatalf("explore: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`explored (\d+) fragments: the model wrote (\d+) queries; (\d+) failed, (\d+) returned no rows, (\d+) kept`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" || m[1] != m[3] || m[1] != m[4] || m[1] != m[5] || fmt.Sprint(3*atoi(m[1])) != m[2] || atoi(m[1]) > 12 {
		text, _ := os.ReadFile(filepath.Join(notesDir, "demo", notes.ExploredFile))
		t.Errorf("explore says:\n%s\nwant each of at most 12 fragments to keep one query of three:\n%s", out, text)
	}
	if book, err = notes.Load(filepath.Join(notesDir, "demo")); err != nil {
		t.Fatal(err)
	}
	if len(book.Triplets) != atoi(m[5]) || len(book.Lessons) != 5 || len(book.Examples) != 5 {
		t.Fatalf("after explore: %d triplets, %d lessons, %d examples", len(book.Triplets), len(book.Lessons), len(book.Examples))
	}
	for _, tr := range book.Triplets {
		if !strings.HasPrefix(tr.SQL, "SELECT count(*) AS n") || len(tr.Tables) == 0 {
			t.Errorf("explore kept %+v: only the counts ran and returned rows", tr)
		}
	}

	// The experienced system: each question's prompt holds the notes of
	// the others, never its own entry.
	before = fake.Calls()
	evalOut := filepath.Join(dir, "experienced")
	out, err = runCmd(t, append([]string{"eval", "--demo", "--cache-dir", cacheDir, "--system", "experienced", "--notes", notesDir,
		"--limit", "10", "--max-turns", "2", "--out", evalOut}, model...)...)
	if err != nil {
		t.Fatalf("eval --system experienced: %v\n%s", err, out)
	}
	if !strings.Contains(out, "system experienced · model openai:fake-1") || !strings.Contains(out, "accuracy 50.00 % (5 of 10)") ||
		!strings.Contains(out, "notes in 10 of 10 prompts · mean ") {
		t.Errorf("eval says:\n%s", out)
	}
	for id, p := range readPredictions(t, evalOut) {
		if p.NotesBytes < 100 {
			t.Errorf("question %d: notes_bytes %d, want the notes' size", id, p.NotesBytes)
		}
	}
	sawTriplet := false
	for _, r := range fake.Requests()[before:] {
		first := r.FirstUser()
		q, ok := byQuestion(qs, first)
		if !ok {
			t.Fatalf("a request for no question: %.200q", first)
		}
		if strings.Contains(first, fmt.Sprintf("(lesson-%d)", q.ID)) {
			t.Errorf("question %d sees its own lesson:\n%s", q.ID, first)
		}
		if n := strings.Count(first, q.Question); n != 1 {
			t.Errorf("question %d: its text appears %d times in its prompt, want once (its own example must not):\n%s", q.ID, n, first)
		}
		if !strings.Contains(first, "Lessons from past mistakes:") || !regexp.MustCompile(`\(lesson-\d+\)`).MatchString(first) {
			t.Errorf("question %d: no lessons in the prompt:\n%s", q.ID, first)
		}
		for _, l := range book.Lessons {
			if l.QuestionID != q.ID && strings.Contains(first, l.Lesson) && !strings.Contains(first, "SELECT 'wrong'") {
				t.Errorf("question %d: a lesson without its wrong SQL:\n%s", q.ID, first)
			}
		}
		if strings.Contains(first, "SELECT count(*) AS n") {
			sawTriplet = true
		}
		if strings.Contains(first, "no_such_column") || regexp.MustCompile(`WHERE \d+ = 0`).MatchString(first) {
			t.Errorf("question %d: a query that failed or returned nothing reached the prompt:\n%s", q.ID, first)
		}
	}
	if !sawTriplet {
		t.Error("no prompt held an explored query")
	}

	// sqlmcp ask --notes is the experienced agent too.
	before = fake.Calls()
	q := qs[11]
	out, err = runCmd(t, append([]string{"ask", "--demo", "--cache-dir", cacheDir, "--notes", notesDir, "--max-turns", "2", q.Question}, model...)...)
	if err != nil {
		t.Fatalf("ask --notes: %v\n%s", err, out)
	}
	reqs := fake.Requests()[before:]
	if len(reqs) == 0 || !strings.Contains(reqs[0].FirstUser(), "Lessons from past mistakes:") || !strings.Contains(reqs[0].FirstUser(), "(lesson-") {
		t.Errorf("ask --notes: the prompt lacks the notes:\n%v", reqs)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// byQuestion finds the question a prompt starts with.
func byQuestion(qs []eval.Question, prompt string) (eval.Question, bool) {
	first, _, _ := strings.Cut(prompt, "\n")
	for _, q := range qs {
		if first == "Question: "+q.Question {
			return q, true
		}
	}
	return eval.Question{}, false
}

// A failed model call stops a parallel run; what was answered is kept whole,
// and the next run answers the rest.
func TestEvalParallelStops(t *testing.T) {
	t.Parallel()
	qs, err := eval.ParseQuestions(demo.Questions)
	if err != nil {
		t.Fatal(err)
	}
	fake := experienceModel(t, qs[:10], func(int) bool { return true }) // questions 10 on fail
	cacheDir, out := t.TempDir(), filepath.Join(t.TempDir(), "run")
	args := []string{"eval", "--demo", "--cache-dir", cacheDir, "--out", out, "--parallel", "4", "--max-turns", "2",
		"--base-url", fake.BaseURL(), "--model", "fake-1"}
	got, err := runCmd(t, append(args, "--limit", "16")...)
	if err == nil || !strings.Contains(err.Error(), "the model failed") {
		t.Fatalf("a run with failing model calls: got %v\n%s", err, got)
	}
	preds := readPredictions(t, out)
	if len(preds) > 10 {
		t.Errorf("%d predictions, but only 10 questions could be answered", len(preds))
	}
	for id, p := range preds {
		if id >= 10 || !p.Correct {
			t.Errorf("question %d: %+v", id, p)
		}
	}
	if got, err := runCmd(t, append(args, "--limit", "10")...); err != nil || !strings.Contains(got, "accuracy 100.00 % (10 of 10)") {
		t.Errorf("the rerun: %v\n%s", err, got)
	}
	if n := len(readPredictions(t, out)); n != 10 {
		t.Errorf("%d predictions after the rerun, want 10", n)
	}
}

func TestEvalPostgres(t *testing.T) {
	t.Parallel()
	dsn := dbtest.PostgresDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(u.Path, "/")
	u.Path = "/{db_id}"
	template := strings.Replace(u.String(), "%7Bdb_id%7D", "{db_id}", 1)

	dir := t.TempDir()
	questions := []eval.Question{
		{ID: 1, DB: id, Question: "How many customers are there?", SQL: "SELECT count(*) FROM customers", Difficulty: "easy"},
		{ID: 2, DB: id, Question: "Which products cost more than 10 euros?", Evidence: "price is in euros", SQL: "SELECT name FROM products WHERE price > 10", Difficulty: "moderate"},
		{ID: 3, DB: id, Question: "Which cities do customers live in?", SQL: "SELECT DISTINCT city FROM customers", Difficulty: "easy"},
	}
	b, _ := json.Marshal(questions)
	qfile := filepath.Join(dir, "questions.json")
	if err := os.WriteFile(qfile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// BIRD's descriptions beside, under --db-root, reach the server.
	desc := filepath.Join(dir, "root", id, "database_description")
	if err := os.MkdirAll(desc, 0o755); err != nil {
		t.Fatal(err)
	}
	csv := "original_column_name,column_name,column_description,data_format,value_description\n" +
		"city,city,the town where the customer lives,text,\n"
	if err := os.WriteFile(filepath.Join(desc, "customers.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}

	fake := experienceModel(t, questions, func(id int) bool { return id != 2 })
	for _, system := range []string{"agent", "oneshot"} {
		out := filepath.Join(dir, system)
		stdout, err := runCmd(t, "eval", "--questions", qfile, "--dsn-template", template, "--db-root", filepath.Join(dir, "root"),
			"--system", system, "--out", out, "--max-turns", "2", "--base-url", fake.BaseURL(), "--model", "fake-1")
		if err != nil {
			t.Fatalf("%s: %v\n%s", system, err, stdout)
		}
		preds := readPredictions(t, out)
		for _, q := range questions {
			if p := preds[q.ID]; p.Correct != (q.ID != 2) || p.DB != id {
				t.Errorf("%s: question %d: got %+v", system, q.ID, p)
			}
		}
		if !strings.Contains(stdout, "accuracy 66.67 % (2 of 3)") {
			t.Errorf("%s: summary:\n%s", system, stdout)
		}
	}
	// One database for every question, as BIRD mini-dev's PostgreSQL dump
	// holds its eleven: a URL without {db_id}.
	for i := range questions {
		questions[i].DB = "shop"
	}
	b, _ = json.Marshal(questions)
	if err := os.WriteFile(qfile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one")
	if stdout, err := runCmd(t, "eval", "--questions", qfile, "--dsn-template", dsn, "--out", one, "--max-turns", "2",
		"--base-url", fake.BaseURL(), "--model", "fake-1"); err != nil || !strings.Contains(stdout, "accuracy 66.67 % (2 of 3)") {
		t.Errorf("one database for all: %v\n%s", err, stdout)
	}
	if p := readPredictions(t, one)[1]; p.DB != "shop" || !p.Correct {
		t.Errorf("one database for all: question 1: %+v", p)
	}

	sawDescription := false
	for _, r := range fake.Requests() {
		if strings.Contains(r.System(), "the town where the customer lives") {
			sawDescription = true
		}
	}
	if !sawDescription {
		t.Error("the BIRD description under --db-root did not reach the prompt")
	}
}

func TestLearnExploreErrors(t *testing.T) {
	t.Parallel()
	model := []string{"--base-url", "http://x/v1", "--model", "m"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"learn without notes", append([]string{"learn", "--demo"}, model...), "no notes: pass --notes DIR"},
		{"learn without questions", append([]string{"learn", "--notes", "n"}, model...), "no questions"},
		{"learn takes no system", append([]string{"learn", "--demo", "--notes", "n", "--system", "agent"}, model...), "flag provided but not defined: -system"},
		{"explore without a database", append([]string{"explore", "--notes", "n"}, model...), "no database: pass --db"},
		{"explore without notes", append([]string{"explore", "--demo"}, model...), "no notes: pass --notes DIR"},
		{"explore with both", append([]string{"explore", "--demo", "--db", "x.db", "--notes", "n"}, model...), "give --db or --demo, not both"},
		{"explore bad name", append([]string{"explore", "--db", "x.db", "--notes", "n", "--name", "../x"}, model...), `--name "../x" is not a plain name`},
		{"explore bad bound", append([]string{"explore", "--demo", "--notes", "n", "--per-cluster", "0"}, model...), "must be 1 or more"},
		{"experienced without its notes", append([]string{"eval", "--demo", "--system", "experienced", "--notes", filepath.Join(t.TempDir(), "none")}, model...), "no such folder; sqlmcp learn and sqlmcp explore write it"},
		{"ask: a name without notes", append([]string{"ask", "--demo", "--name", "x", "q"}, model...), "--name is for --notes"},
		{"ask: notes without their folder", append([]string{"ask", "--db", "shop.db", "--notes", t.TempDir(), "q"}, model...), "no notes for shop at "},
		{"ask: notes with a server need a name", append([]string{"ask", "--server", "http://127.0.0.1:1/mcp", "--notes", t.TempDir(), "q"}, model...), "--notes with --server needs --name"},
		{"parallel below one", append([]string{"eval", "--demo", "--parallel", "0"}, model...), "--parallel must be 1 or more"},
		{"explore without a model", []string{"explore", "--demo", "--notes", "n"}, "no model to ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runCmd(t, tt.args...)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v (%s), want a usage error containing %q", err, out, tt.want)
			}
		})
	}
}
