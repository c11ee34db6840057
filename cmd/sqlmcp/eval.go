package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/term"
)

const evalUsage = `sqlmcp eval: measure how well a model answers questions about databases, by
BIRD's rule: the predicted SQL is right when it returns the same set of rows
as the gold SQL on the same database.

Usage:
  sqlmcp eval --questions FILE --db-root DIR [flags]   questions in BIRD's JSON format; each
                                                       database at DIR/<db_id>/<db_id>.sqlite
  sqlmcp eval --questions FILE --dsn-template URL      the same questions on PostgreSQL or MySQL:
                                                       {db_id} in URL names each database; a URL
                                                       without it is one database for all
  sqlmcp eval --questions FILE --db PATH|URL           every question on the one database named
  sqlmcp eval --demo [--db PATH|URL] [flags]           the bundled question set on the demo database,
                                                       or on its copy: sqlmcp demo --mysql FILE
                                                       loaded into MySQL, or sqlmcp demo --parquet DIR
  sqlmcp eval compare DIR_A DIR_B                      pair two runs' predictions: McNemar's exact test

--system oneshot makes one model call per question with the schema and no
tools; --system agent is sqlmcp ask's loop; --system experienced is the agent
with notes (--notes DIR) that sqlmcp learn and sqlmcp explore wrote: lessons
from past mistakes, solved examples and queries known to run, retrieved for
each question, never the question's own entry.

The gold SQL is a question's SQL, or its SQL_mysql, SQL_duckdb or
SQL_postgres on a database of that dialect, where the demo's questions
carry one.

Each run writes OUT/predictions.jsonl (one line a question) and
OUT/summary.json, and prints the summary. Running the same command again
resumes: questions already in OUT/predictions.jsonl are skipped. With
--cache, a rerun makes no model calls.

The model is chosen as sqlmcp ask chooses it (see sqlmcp ask --help).

Flags (each also read from the environment variable shown; a flag wins):
`

// evalConfig is what eval needs, from flags and environment.
type evalConfig struct {
	questionFlags
	system, out string
}

// parseEval reads eval's flags, then the environment for those not given.
// It returns a nil config and no error when -help was asked for.
func parseEval(args []string, stdout io.Writer, getenv func(string) string) (*evalConfig, error) {
	cfg := &evalConfig{}
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.define(fs)
	fs.StringVar(&cfg.system, "system", "agent", "oneshot (one model call, no tools), agent (the ask loop) or experienced (the agent with --notes) (SQLMCP_SYSTEM)")
	fs.StringVar(&cfg.out, "out", "", "the directory for predictions.jsonl and summary.json (SQLMCP_OUT; default eval-SYSTEM)")
	if ok, err := parseArgs(fs, args, stdout, evalUsage, "sqlmcp eval --help", getenv); !ok {
		return nil, err
	}
	if cfg.system != "oneshot" && cfg.system != "agent" && cfg.system != "experienced" {
		return nil, usagef("--system %q: use oneshot, agent or experienced", cfg.system)
	}
	if err := cfg.check(cfg.system == "experienced", getenv); err != nil {
		return nil, err
	}
	if cfg.out == "" {
		cfg.out = "eval-" + cfg.system
	}
	return cfg, nil
}

// runEval is `sqlmcp eval`: it answers and scores the questions, and
// prints the summary.
func runEval(ctx context.Context, cfg *evalConfig, stdout, stderr io.Writer) error {
	if cfg.notes != "" && !dirExists(cfg.notes) {
		return usagef("--notes %s: no such folder; sqlmcp learn and sqlmcp explore write it", cfg.notes)
	}
	r, err := cfg.open()
	if err != nil {
		return err
	}
	p := term.NewProgress(stderr)
	defer p.Close()
	right := 0
	opts := &eval.Options{
		System:   cfg.system,
		Model:    cfg.model,
		MaxTurns: cfg.maxTurns,
		Notes:    cfg.notes,
		Connect:  r.connect,
		DSN:      r.dsn,
		Engines:  r.engines,
		Out:      cfg.out,
		Limit:    cfg.limit,
		Parallel: cfg.parallel,
		OnPrediction: func(done, total int, pr *eval.Prediction) {
			if pr.Correct {
				right++
			}
			p.Show(fmt.Sprintf("%d/%d questions · %d of this run's right · question %d %s", done, total, right, pr.QuestionID, verdict(pr)))
		},
	}
	s, err := eval.Run(ctx, r.questions, opts)
	p.Close()
	if err != nil {
		return err
	}
	s.Print(stdout)
	fmt.Fprintf(stdout, "predictions: %s\n", filepath.Join(cfg.out, eval.PredictionsFile))
	return nil
}

// evalCompare is `sqlmcp eval compare DIR_A DIR_B`.
func evalCompare(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return usagef("eval compare wants two run directories: sqlmcp eval compare DIR_A DIR_B")
	}
	var runs [2][]eval.Prediction
	for i, dir := range args {
		path := filepath.Join(dir, eval.PredictionsFile)
		if !fileExists(path) {
			return usagef("eval compare: no %s", path)
		}
		ps, err := eval.ReadPredictions(path)
		if err != nil {
			return err
		}
		runs[i] = ps
	}
	c := eval.Compare(runs[0], runs[1])
	if c.Shared == 0 {
		return fmt.Errorf("eval compare: %s and %s share no questions", args[0], args[1])
	}
	c.Print(stdout, args[0], args[1])
	return nil
}
