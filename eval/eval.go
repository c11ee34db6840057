// Package eval measures how well a text-to-SQL system answers questions,
// the way BIRD does: each question in BIRD's JSON format is answered by a
// system (one model call, or the agent's loop over sqlmcp's tools), and
// the answer's SQL is scored against the gold SQL by running both on the
// same database and comparing the sets of rows (see Score).
//
// eval sits above agent and source: it talks to the database as the
// system under test does, over MCP, and scores through its own guarded,
// read-only source.DB. cmd/sqlmcp ("sqlmcp eval") reads the flags and
// starts the servers.
package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/notes"
	"github.com/sqlmcp/sqlmcp/source"
)

// Question is one question in BIRD's format. Evidence is the hint: outside
// knowledge the question needs, "" for none.
type Question struct {
	ID         int    `json:"question_id"`
	DB         string `json:"db_id"`
	Question   string `json:"question"`
	Evidence   string `json:"evidence"`
	SQL        string `json:"SQL"`
	Difficulty string `json:"difficulty"`
	// Dialects holds gold SQL for the dialects where SQL does not run the
	// same, from the question's SQL_<dialect> keys (SQL_mysql,
	// SQL_duckdb); nil for none.
	Dialects map[sqlmcp.Dialect]string `json:"-"`
}

// Gold is the question's gold SQL for a database of dialect d: its
// SQL_<dialect>, else SQL.
func (q *Question) Gold(d sqlmcp.Dialect) string {
	if s, ok := q.Dialects[d]; ok {
		return s
	}
	return q.SQL
}

// dialects are the dialects a question's SQL_<dialect> key may name.
var dialects = []sqlmcp.Dialect{sqlmcp.SQLite, sqlmcp.Postgres, sqlmcp.MySQL, sqlmcp.DuckDB}

// ParseQuestions reads a JSON list of questions in BIRD's format. Each
// needs a db_id, a question and SQL, and question_ids must be unique; a
// missing question_id is the question's place in the list, counting from
// 0, as BIRD's dev set numbers them (its train set has none); a missing
// difficulty becomes "unknown". A key SQL_<dialect> (SQL_mysql,
// SQL_duckdb, SQL_postgres, SQL_sqlite) is the gold SQL on a database of
// that dialect, in Question.Dialects.
func ParseQuestions(data []byte) ([]Question, error) {
	var raw []struct {
		Question
		ID *int `json:"question_id"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("reading questions: want a JSON list of {question_id, db_id, question, evidence, SQL, difficulty}: %w", err)
	}
	var keys []map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("reading questions: %w", err)
	}
	qs := make([]Question, len(raw))
	for i, r := range raw {
		qs[i] = r.Question
		qs[i].ID = i
		if r.ID != nil {
			qs[i].ID = *r.ID
		}
		for k, v := range keys[i] {
			name, ok := strings.CutPrefix(k, "SQL_")
			if !ok {
				continue
			}
			var sql string
			if err := json.Unmarshal(v, &sql); err != nil || strings.TrimSpace(sql) == "" {
				return nil, fmt.Errorf("reading questions: question %d: %s must be SQL text", qs[i].ID, k)
			}
			if !slices.Contains(dialects, sqlmcp.Dialect(name)) {
				return nil, fmt.Errorf("reading questions: question %d: %s names no dialect: use SQL_%s", qs[i].ID, k, strings.Join(dialectNames(), ", SQL_"))
			}
			if qs[i].Dialects == nil {
				qs[i].Dialects = map[sqlmcp.Dialect]string{}
			}
			qs[i].Dialects[sqlmcp.Dialect(name)] = sql
		}
	}
	seen := map[int]bool{}
	for i := range qs {
		q := &qs[i]
		switch {
		case q.DB == "" || strings.TrimSpace(q.Question) == "" || strings.TrimSpace(q.SQL) == "":
			return nil, fmt.Errorf("reading questions: question %d (the %d. in the list) lacks a db_id, question or SQL", q.ID, i+1)
		case !notes.PlainName(q.DB):
			return nil, fmt.Errorf("reading questions: question %d: db_id %q is not a plain name", q.ID, q.DB)
		case seen[q.ID]:
			return nil, fmt.Errorf("reading questions: question_id %d appears twice", q.ID)
		}
		seen[q.ID] = true
		if q.Difficulty == "" {
			q.Difficulty = "unknown"
		}
	}
	return qs, nil
}

// dialectNames are the names of dialects, in order.
func dialectNames() []string {
	var names []string
	for _, d := range dialects {
		names = append(names, string(d))
	}
	return names
}

// Prediction is one question's outcome: a line of predictions.jsonl.
type Prediction struct {
	QuestionID int    `json:"question_id"`
	DB         string `json:"db_id"`
	Difficulty string `json:"difficulty"`
	SQL        string `json:"sql"`
	Correct    bool   `json:"correct"`
	// Error says why the prediction is wrong beyond different rows: the
	// system gave no SQL, or the SQL (or the gold SQL) failed; ErrorKind
	// classifies it: "no sql", "refused", "timeout", "too large",
	// "sql error" or "gold".
	Error     string `json:"error,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
	// Refused counts statements the guard refused while the system
	// answered, and the predicted SQL if the scorer's guard refused it.
	Refused int `json:"refused,omitempty"`
	// NotesBytes is how much of the experienced system's notes the
	// question's prompt held.
	NotesBytes int     `json:"notes_bytes,omitempty"`
	Turns      int     `json:"turns"`
	Tokens     int     `json:"tokens"`
	Seconds    float64 `json:"seconds"`
}

// Options configure Run. Model, Connect and DSN are required.
type Options struct {
	// System is "oneshot" (one model call with the schema, no tools),
	// "agent" (agent.Ask's loop over the tools) or "experienced" (the agent
	// with notes: lessons, solved examples and explored queries retrieved
	// for each question, never the question's own entry). Default "agent".
	System string
	// Notes is the notes root for the experienced system: each database's
	// notes are in Notes/<db_id>/ (see package notes). Required for
	// experienced; a database without notes is answered without.
	Notes string
	// NotesBytes bounds the notes added to one question. Default 6000.
	NotesBytes int
	Model      agent.Model
	// MaxTurns caps the agent's model calls per question. Default 8.
	MaxTurns int
	// SchemaBytes bounds the one-shot prompt's schema: the table list,
	// then tables described in list order while they fit. Default 24000.
	SchemaBytes int
	// Connect opens an MCP session to sqlmcp serving the database dbID.
	// Run closes the session.
	Connect func(ctx context.Context, dbID string) (*mcp.ClientSession, error)
	// DSN names the database dbID for the scorer.
	DSN func(dbID string) (string, error)
	// Out is the directory for predictions.jsonl and summary.json,
	// created if missing. Questions already in predictions.jsonl are
	// skipped, so a rerun resumes.
	Out string
	// Limit answers only the first Limit questions; zero for all.
	Limit int
	// Parallel answers this many questions at once, each worker with its
	// own servers and scorer. Zero means 1.
	Parallel int
	// Timeout stops each scored statement. Default Timeout (30 s).
	Timeout time.Duration
	// Engines open the scorer's databases, as source.Options.Engines;
	// nil for the built-in ones. A program that serves more engines
	// (DuckDB) hands them here.
	Engines []source.Engine
	// OnPrediction is told of each new prediction, with how many of the
	// questions are done. Nil for none.
	OnPrediction func(done, total int, p *Prediction)
}

// The files Run writes in Options.Out.
const (
	PredictionsFile = "predictions.jsonl"
	SummaryFile     = "summary.json"
)

// Run answers the questions not yet in Out's predictions.jsonl, scores
// each, appends one line per question, and writes and returns the summary
// of every prediction in the file. It stops with an error when ctx ends or
// a model call fails (so a rerun retries that question); a question the
// system could not answer is a wrong prediction, not an error.
func Run(ctx context.Context, questions []Question, o *Options) (*Summary, error) {
	if o.Model == nil || o.Connect == nil || o.DSN == nil || o.Out == "" {
		return nil, errors.New("eval: Model, Connect, DSN and Out are required")
	}
	system := o.System
	if system == "" {
		system = "agent"
	}
	switch {
	case system != "oneshot" && system != "agent" && system != "experienced":
		return nil, fmt.Errorf("eval: unknown system %q: use oneshot, agent or experienced", system)
	case system == "experienced" && o.Notes == "":
		return nil, errors.New("eval: the experienced system needs notes")
	}
	if o.Limit > 0 && o.Limit < len(questions) {
		questions = questions[:o.Limit]
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(o.Out, PredictionsFile)
	done, err := readPredictionsRepair(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	seen := map[int]bool{}
	for _, p := range done {
		seen[p.QuestionID] = true
	}
	count := 0
	for _, q := range questions {
		if seen[q.ID] {
			count++
		}
	}
	var todo []Question
	for _, q := range questions {
		if !seen[q.ID] {
			todo = append(todo, q)
		}
	}
	answer := func(ctx context.Context, r *runner, q Question) (*Prediction, error) { return r.answer(ctx, q) }
	err = parallel(ctx, todo, o.Parallel, func() *runner { return newRunner(o, system) }, answer, func(p *Prediction) error {
		b, _ := json.Marshal(p)
		if _, err := f.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		count++
		if o.OnPrediction != nil {
			o.OnPrediction(count, len(questions), p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	all, err := ReadPredictions(path)
	if err != nil {
		return nil, err
	}
	s := Summarize(all)
	s.System, s.Model = system, o.Model.Name()
	b, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(filepath.Join(o.Out, SummaryFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

// watched counts a question's model calls and tokens, also when the
// system ends without an answer, and remembers a failed call, which stops
// the run rather than counting against the system. Questions are answered
// one at a time, and a system makes one call at a time.
type watched struct {
	agent.Model
	calls int
	usage agent.Usage
	err   error
}

func (w *watched) Complete(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	resp, err := w.Model.Complete(ctx, req)
	if err != nil {
		w.err = err
		return nil, err
	}
	w.calls++
	w.usage.Input += resp.Usage.Input
	w.usage.Output += resp.Usage.Output
	w.usage.CacheRead += resp.Usage.CacheRead
	w.usage.CacheWrite += resp.Usage.CacheWrite
	return resp, nil
}

func (w *watched) reset() { w.calls, w.usage, w.err = 0, agent.Usage{}, nil }

// database is one database's server session, scorer and system.
type database struct {
	cs      *mcp.ClientSession
	db      *source.DB
	agent   *agent.Agent // agent and experienced
	notes   *notes.Notes // experienced
	prompt  string       // oneshot: the system prompt
	refused int          // agent: guard refusals in the current question
}

type runner struct {
	o      *Options
	system string
	model  *watched
	dbs    map[string]*database
}

func newRunner(o *Options, system string) *runner {
	return &runner{o: o, system: system, model: &watched{Model: o.Model}, dbs: map[string]*database{}}
}

func (r *runner) close() {
	for _, d := range r.dbs {
		d.cs.Close()
		d.db.Close()
	}
}

// open starts the database's server and scorer on first use. A runner
// keeps one database open: question sets come grouped by database, and
// parallel workers would otherwise each keep a server for every one.
func (r *runner) open(ctx context.Context, id string) (*database, error) {
	if d := r.dbs[id]; d != nil {
		return d, nil
	}
	r.close()
	r.dbs = map[string]*database{}
	dsn, err := r.o.DSN(id)
	if err != nil {
		return nil, err
	}
	db, err := OpenDB(ctx, dsn, r.o.Timeout, r.o.Engines)
	if err != nil {
		return nil, fmt.Errorf("opening %s for scoring: %w", id, err)
	}
	cs, err := r.o.Connect(ctx, id)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to the server for %s: %w", id, err)
	}
	d := &database{cs: cs, db: db}
	r.dbs[id] = d
	switch r.system {
	case "experienced":
		if d.notes, err = notes.Load(filepath.Join(r.o.Notes, id)); err != nil {
			return nil, fmt.Errorf("reading the notes of %s: %w", id, err)
		}
		fallthrough
	case "agent":
		d.agent, err = agent.New(ctx, cs, &agent.Options{Model: r.model, MaxTurns: r.o.MaxTurns, OnEvent: func(e agent.Event) {
			if e.Kind == "tool" && e.IsError && strings.Contains(e.Text, "refused: ") {
				d.refused++
			}
		}})
	case "oneshot":
		d.prompt, err = oneshotPrompt(ctx, cs, r.o.SchemaBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("preparing %s: %w", id, err)
	}
	return d, nil
}

// answer has the system answer q, and scores the answer.
func (r *runner) answer(ctx context.Context, q Question) (*Prediction, error) {
	d, err := r.open(ctx, q.DB)
	if err != nil {
		return nil, err
	}
	p := &Prediction{QuestionID: q.ID, DB: q.DB, Difficulty: q.Difficulty}
	r.model.reset()
	d.refused = 0
	start := time.Now()
	switch r.system {
	case "agent", "experienced":
		var known string
		if d.notes != nil {
			known = d.notes.Prompt(notes.Query{ID: q.ID, Question: q.Question, Hint: q.Evidence}, r.o.NotesBytes)
			p.NotesBytes = len(known)
		}
		var ans *agent.Answer
		if ans, err = d.agent.AskWithNotes(ctx, q.Question, q.Evidence, known); err == nil {
			p.SQL = ans.SQL
		}
	case "oneshot":
		var resp *agent.Response
		if resp, err = r.model.Complete(ctx, oneshotRequest(d.prompt, q)); err == nil {
			p.SQL = ExtractSQL(resp.Text())
		}
	}
	p.Seconds = float64(time.Since(start).Milliseconds()) / 1000
	u := r.model.usage
	p.Turns, p.Tokens, p.Refused = r.model.calls, u.Input+u.Output+u.CacheRead+u.CacheWrite, d.refused
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r.model.err != nil {
		return nil, fmt.Errorf("the model failed: %w", r.model.err)
	}
	if err == nil && strings.TrimSpace(p.SQL) == "" {
		err = errors.New("the system gave no SQL")
	}
	if err != nil {
		p.Error, p.ErrorKind = err.Error(), "no sql"
		return p, nil
	}
	p.Correct, err = Score(ctx, d.db, q.Gold(d.db.Dialect()), p.SQL)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		p.Error, p.ErrorKind = err.Error(), errorKind(err)
		if p.ErrorKind == "refused" {
			p.Refused++
		}
	}
	return p, nil
}

// oneshotPrompt is the one-shot system's system prompt: the rules and the
// schema, read through the server's tools as the agent reads it.
func oneshotPrompt(ctx context.Context, cs *mcp.ClientSession, budget int) (string, error) {
	if budget <= 0 {
		budget = 24000
	}
	c := agent.NewClient(cs)
	var b strings.Builder
	b.WriteString("You write one SQL query that answers a question about a database.\n" +
		"Reply with the SQL only: one read-only SELECT statement, selecting exactly the columns the question asks for, " +
		"with no explanation and no code fences. A hint, when given, is outside knowledge about the data: trust it.\n")
	if s := c.Instructions(); s != "" {
		fmt.Fprintf(&b, "\nThe database server says:\n%s\n", s)
	}
	listed, err := c.ListTables(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "\nTables:\n%s\n", strings.TrimRight(listed.Text, "\n"))
	left := budget - len(listed.Text)
	for _, t := range listed.Tables {
		d, err := c.DescribeTable(ctx, t.Name)
		if err != nil {
			continue // a table that went away, say
		}
		text := strings.TrimRight(d.Text, "\n")
		if len(text)+2 > left {
			break
		}
		left -= len(text) + 2
		fmt.Fprintf(&b, "\n%s\n", text)
	}
	return b.String(), nil
}

// oneshotRequest asks for one question's SQL; the user message is the
// agent's first.
func oneshotRequest(system string, q Question) *agent.Request {
	return &agent.Request{System: system, Messages: []agent.Message{{Role: "user",
		Blocks: []agent.Block{{Type: "text", Text: agent.QuestionText(q.Question, q.Evidence)}}}}}
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	fenced     = regexp.MustCompile("(?s)```[A-Za-z]*[ \t]*\n?(.*?)```")
)

// ExtractSQL takes the SQL out of a model's reply: it drops <think>
// blocks, keeps the first code fence's content when there is one, and
// trims space and trailing semicolons.
func ExtractSQL(reply string) string {
	s := thinkBlock.ReplaceAllString(reply, "")
	if m := fenced.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	return strings.TrimRight(strings.TrimSpace(s), "; \t\r\n")
}

// ReadPredictions reads a predictions.jsonl file; a missing file holds
// none. A line that is not a prediction is an error, except a last line
// cut short by an interrupted run, which is ignored.
func ReadPredictions(path string) ([]Prediction, error) {
	ps, _, err := readPredictions(path)
	return ps, err
}

// readPredictionsRepair reads the predictions and cuts a torn last line
// off the file, so appending starts on a fresh line.
func readPredictionsRepair(path string) ([]Prediction, error) {
	ps, good, err := readPredictions(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > good {
		if err := os.Truncate(path, good); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// readPredictions returns the predictions and the length of the file's
// whole lines.
func readPredictions(path string) ([]Prediction, int64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var ps []Prediction
	var good int64
	rd := bufio.NewReader(bytes.NewReader(data))
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if err == io.EOF {
			// A last line without its newline was cut short: ignore it.
			return ps, good, nil
		}
		good += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var p Prediction
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, 0, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		ps = append(ps, p)
	}
}

// parallel has n workers (at least one) do work on each question, each
// worker with its own runner, and hands each result to done, one at a
// time, in the order they finish. The first error, from work or done, or
// the end of ctx, stops every worker; parallel returns it once they have
// stopped.
func parallel[T any](ctx context.Context, qs []Question, n int, newRunner func() *runner,
	work func(context.Context, *runner, Question) (T, error), done func(T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once     sync.Once
		firstErr error
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err })
		cancel()
	}
	next := make(chan Question)
	out := make(chan T)
	var wg sync.WaitGroup
	for range max(1, min(n, len(qs))) {
		wg.Go(func() {
			r := newRunner()
			defer r.close()
			for q := range next {
				v, err := work(ctx, r, q)
				if err != nil {
					// The first failure is the one kept; those it causes
					// by stopping the others come after it.
					fail(fmt.Errorf("question %d: %w", q.ID, err))
					return
				}
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(next)
		for _, q := range qs {
			select {
			case next <- q:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	for v := range out {
		if ctx.Err() != nil {
			continue // stopping: drain what the workers still hand over
		}
		if err := done(v); err != nil {
			fail(err)
		}
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}
