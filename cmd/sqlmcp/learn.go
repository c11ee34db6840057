package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/term"
)

const learnUsage = `sqlmcp learn: let the agent learn from training questions. It answers each
question as sqlmcp eval --system agent does; a solved question becomes an
example, and for a wrong answer the model writes a one-line lesson, kept
beside its wrong SQL and the right SQL. The notes are Markdown files a person
can read and edit, in NOTES/<db_id>/lessons.md and examples.md; sqlmcp eval
--system experienced --notes NOTES reads them. A rerun resumes: questions
already in the notes are skipped.

Usage:
  sqlmcp learn --questions TRAIN --db-root DIR --notes NOTES [flags]
  sqlmcp learn --questions TRAIN --dsn-template URL --notes NOTES [flags]
  sqlmcp learn --questions TRAIN --db PATH|URL --notes NOTES [flags]
  sqlmcp learn --demo [--db PATH|URL] --notes NOTES [flags]

Flags (each also read from the environment variable shown; a flag wins):
`

// parseLearn reads learn's flags, then the environment for those not
// given. It returns nil and no error when -help was asked for.
func parseLearn(args []string, stdout io.Writer, getenv func(string) string) (*questionFlags, error) {
	cfg := &questionFlags{}
	fs := flag.NewFlagSet("learn", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.define(fs)
	if ok, err := parseArgs(fs, args, stdout, learnUsage, "sqlmcp learn --help", getenv); !ok {
		return nil, err
	}
	if err := cfg.check(true, getenv); err != nil {
		return nil, err
	}
	return cfg, nil
}

// runLearn is `sqlmcp learn`: the agent answers the training questions and
// writes lessons and examples into the notes.
func runLearn(ctx context.Context, cfg *questionFlags, stdout, stderr io.Writer) error {
	r, err := cfg.open()
	if err != nil {
		return err
	}
	p := term.NewProgress(stderr)
	defer p.Close()
	opts := &eval.LearnOptions{
		Model:    cfg.model,
		MaxTurns: cfg.maxTurns,
		Notes:    cfg.notes,
		Connect:  r.connect,
		DSN:      r.dsn,
		Engines:  r.engines,
		Limit:    cfg.limit,
		Parallel: cfg.parallel,
		OnQuestion: func(done, total int, pr *eval.Prediction, learned string) {
			p.Show(fmt.Sprintf("%d/%d questions · question %d %s: %s", done, total, pr.QuestionID, verdict(pr), learned))
		},
	}
	s, err := eval.Learn(ctx, r.questions, opts)
	p.Close()
	if s != nil {
		fmt.Fprintf(stdout, "learned from %d questions: %d examples, %d lessons; %d skipped (the gold SQL failed); %d already in the notes\n",
			s.Questions, s.Examples, s.Lessons, s.Skipped, s.Known)
		fmt.Fprintf(stdout, "notes: %s\n", cfg.notes)
	}
	return err
}
