package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/notes"
	"github.com/sqlmcp/sqlmcp/source"
)

// LearnOptions configure Learn: the fields Run also has mean the same, and
// Notes is the notes root written to (each database's in Notes/<db_id>/).
// Model, Connect, DSN and Notes are required.
type LearnOptions struct {
	Model    agent.Model
	MaxTurns int
	Connect  func(ctx context.Context, dbID string) (*mcp.ClientSession, error)
	DSN      func(dbID string) (string, error)
	Notes    string
	Limit    int
	Parallel int
	Engines  []source.Engine
	// OnQuestion is told of each question learned from: its prediction and
	// what became of it ("example", "lesson", or "skipped" when the gold
	// SQL itself failed). Nil for none.
	OnQuestion func(done, total int, p *Prediction, learned string)
}

// LearnSummary counts what Learn did in this call.
type LearnSummary struct {
	Questions int // answered now
	Examples  int // solved, kept as examples
	Lessons   int // answered wrong, a lesson written
	Skipped   int // the gold SQL failed: nothing to learn from
	Known     int // already in the notes from an earlier run
}

// Learn has the agent answer training questions and writes what it learns
// into each database's notes: a solved question becomes an example; for a
// wrong answer, the model writes a one-line lesson, kept beside its wrong
// SQL and the right SQL. The notes are saved after every question, and a
// question already in them is skipped, so a rerun resumes. With Parallel
// above 1, that many questions are answered at once. It stops with an
// error when ctx ends or a model call fails.
func Learn(ctx context.Context, questions []Question, o *LearnOptions) (*LearnSummary, error) {
	if o.Model == nil || o.Connect == nil || o.DSN == nil || o.Notes == "" {
		return nil, errors.New("eval: Model, Connect, DSN and Notes are required")
	}
	if o.Limit > 0 && o.Limit < len(questions) {
		questions = questions[:o.Limit]
	}
	books := map[string]*notes.Notes{}
	var todo []Question
	s := &LearnSummary{}
	for _, q := range questions {
		n := books[q.DB]
		if n == nil {
			var err error
			if n, err = notes.Load(filepath.Join(o.Notes, q.DB)); err != nil {
				return s, fmt.Errorf("reading the notes of %s: %w", q.DB, err)
			}
			books[q.DB] = n
		}
		if n.Has(q.ID) {
			s.Known++
		} else {
			todo = append(todo, q)
		}
	}
	// Workers answer, and write lessons; the notes are changed and saved
	// here, one question at a time.
	type learned struct {
		q      Question
		p      *Prediction
		lesson string
	}
	work := func(ctx context.Context, r *runner, q Question) (*learned, error) {
		p, err := r.answer(ctx, q)
		if err != nil {
			return nil, err
		}
		q.SQL = q.Gold(r.dbs[q.DB].db.Dialect()) // the right SQL, as this database runs it
		l := &learned{q: q, p: p}
		if !p.Correct && p.ErrorKind != "gold" {
			if l.lesson, err = r.lesson(ctx, q, p); err != nil {
				return nil, fmt.Errorf("writing the lesson: %w", err)
			}
		}
		return l, nil
	}
	opts := &Options{Model: o.Model, MaxTurns: o.MaxTurns, Connect: o.Connect, DSN: o.DSN, Engines: o.Engines}
	done := s.Known
	err := parallel(ctx, todo, o.Parallel, func() *runner { return newRunner(opts, "agent") }, work, func(l *learned) error {
		q, p, n := l.q, l.p, books[l.q.DB]
		s.Questions++
		kind := "skipped"
		switch {
		case p.Correct:
			n.Examples = append(n.Examples, notes.Example{QuestionID: q.ID, Question: q.Question, Hint: q.Evidence, SQL: p.SQL})
			kind = "example"
			s.Examples++
		case p.ErrorKind == "gold":
			s.Skipped++
		default:
			n.Lessons = append(n.Lessons, notes.Lesson{QuestionID: q.ID, Question: q.Question, Hint: q.Evidence,
				Lesson: l.lesson, WrongSQL: p.SQL, SQL: q.SQL})
			kind = "lesson"
			s.Lessons++
		}
		if kind != "skipped" {
			if err := n.Save(filepath.Join(o.Notes, q.DB)); err != nil {
				return fmt.Errorf("saving the notes of %s: %w", q.DB, err)
			}
		}
		done++
		if o.OnQuestion != nil {
			o.OnQuestion(done, len(questions), p, kind)
		}
		return nil
	})
	return s, err
}

// lessonSystem asks for one lesson from one mistake.
const lessonSystem = `You review a wrong answer to a question about a SQL database and write one lesson for next time.
Reply with the lesson only: one line, at most 40 words, saying what to do differently on this database. Make it general enough to help with other questions: name the tables, columns, values, formats or SQL habits involved. Do not restate the question.`

// previewRows is how many rows of each side's result the lesson prompt shows.
const previewRows = 3

// lesson asks the model for a one-line lesson from a wrong prediction.
func (r *runner) lesson(ctx context.Context, q Question, p *Prediction) (string, error) {
	d := r.dbs[q.DB] // answer opened it
	var b strings.Builder
	b.WriteString(agent.QuestionText(q.Question, q.Evidence) + "\n")
	switch {
	case strings.TrimSpace(p.SQL) == "":
		fmt.Fprintf(&b, "\nThe answer gave no SQL: %s\n", p.Error)
	case p.Error != "":
		fmt.Fprintf(&b, "\nThe wrong SQL:\n%s\nIt failed: %s\n", p.SQL, p.Error)
	default:
		fmt.Fprintf(&b, "\nThe wrong SQL:\n%s\nIt returned other rows than the right SQL: %s\n", p.SQL, r.preview(ctx, d, p.SQL))
	}
	fmt.Fprintf(&b, "\nThe right SQL:\n%s\nIt returns: %s\n", q.SQL, r.preview(ctx, d, q.SQL))
	resp, err := r.model.Complete(ctx, &agent.Request{System: lessonSystem, MaxTokens: 256,
		Messages: []agent.Message{{Role: "user", Blocks: []agent.Block{{Type: "text", Text: b.String()}}}}})
	if err != nil {
		return "", err
	}
	return lessonLine(resp.Text()), nil
}

// preview describes a query's first rows for the lesson prompt.
func (r *runner) preview(ctx context.Context, d *database, sql string) string {
	res, err := d.db.Query(ctx, sql, previewRows)
	if err != nil {
		return "(an error: " + err.Error() + ")"
	}
	if len(res.Rows) == 0 {
		return "no rows"
	}
	var cols, rows []string
	for _, c := range res.Columns {
		cols = append(cols, c.Name)
	}
	for _, row := range res.Rows {
		b, _ := json.Marshal(row)
		rows = append(rows, string(b))
	}
	more := ""
	if res.Truncated {
		more = " ..."
	}
	return fmt.Sprintf("columns %s; rows %s%s", strings.Join(cols, ", "), strings.Join(rows, "; "), more)
}

// lessonLine is the first line of a reply with words in it, without a
// list marker or a "Lesson:" label; a reply without one gives a lesson
// that points at the SQL beside it.
func lessonLine(reply string) string {
	for _, line := range strings.Split(ExtractSQL(reply), "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*• "))
		line = strings.TrimSpace(strings.TrimPrefix(line, "Lesson:"))
		if line != "" {
			return line
		}
	}
	return "Compare the wrong SQL with the right SQL below: the wrong one returned other rows."
}
