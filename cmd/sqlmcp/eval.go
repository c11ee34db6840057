package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/eval"
)

const evalUsage = `sqlmcp eval: measure how well a model answers questions about databases, by
BIRD's rule: the predicted SQL is right when it returns the same set of rows
as the gold SQL on the same database.

Usage:
  sqlmcp eval --questions FILE --db-root DIR [flags]   questions in BIRD's JSON format; each
                                                       database at DIR/<db_id>/<db_id>.sqlite
  sqlmcp eval --demo [flags]                           the bundled question set on the demo database
  sqlmcp eval compare DIR_A DIR_B                      pair two runs' predictions: McNemar's exact test

--system oneshot makes one model call per question with the schema and no
tools; --system agent is sqlmcp ask's loop. Each run writes
OUT/predictions.jsonl (one line a question) and OUT/summary.json, and prints
the summary. Running the same command again resumes: questions already in
OUT/predictions.jsonl are skipped. With --cache, a rerun makes no model calls.

The model is chosen as sqlmcp ask chooses it (see sqlmcp ask --help).

Flags (each also read from the environment variable shown; a flag wins):
`

// evalConfig is what eval needs, from flags and environment.
type evalConfig struct {
	questions, dbRoot string
	demo              bool
	cacheDir          string // where the demo is built
	system            string
	limit, maxTurns   int
	out, cache        string
	model             askConfig // provider, model and base URL
	newModel          func() agent.Model
}

// parseEval reads eval's flags, then the environment for those not given.
// It returns a nil config and no error when -help was asked for.
func parseEval(args []string, stdout io.Writer, getenv func(string) string) (*evalConfig, error) {
	cfg := &evalConfig{}
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.questions, "questions", "", "a JSON list of questions in BIRD's format: question_id, db_id, question, evidence, SQL, difficulty (SQLMCP_QUESTIONS)")
	fs.StringVar(&cfg.dbRoot, "db-root", "", "the databases, at DIR/<db_id>/<db_id>.sqlite, with BIRD's database_description/ beside each (SQLMCP_DB_ROOT)")
	fs.BoolVar(&cfg.demo, "demo", false, "the bundled question set on the demo database (SQLMCP_DEMO)")
	fs.StringVar(&cfg.cacheDir, "cache-dir", "", "--demo: where the demo database is built (SQLMCP_CACHE_DIR; default: the user cache directory)")
	fs.StringVar(&cfg.system, "system", "agent", "oneshot (one model call, no tools) or agent (the ask loop) (SQLMCP_SYSTEM)")
	fs.IntVar(&cfg.limit, "limit", 0, "answer only the first N questions; 0 for all (SQLMCP_LIMIT)")
	fs.StringVar(&cfg.out, "out", "", "the directory for predictions.jsonl and summary.json (SQLMCP_OUT; default eval-SYSTEM)")
	fs.StringVar(&cfg.cache, "cache", "", "keep model replies in this directory, so a rerun makes no model calls (SQLMCP_CACHE)")
	fs.IntVar(&cfg.maxTurns, "max-turns", 8, "agent: the most model calls for one question (SQLMCP_MAX_TURNS)")
	fs.StringVar(&cfg.model.provider, "provider", "", "anthropic or openai, as for ask (SQLMCP_PROVIDER)")
	fs.StringVar(&cfg.model.model, "model", "", "the model, as for ask (SQLMCP_MODEL)")
	fs.StringVar(&cfg.model.baseURL, "base-url", "", "an OpenAI-compatible API's root, as for ask (SQLMCP_BASE_URL, or OPENAI_BASE_URL)")
	if ok, err := parseArgs(fs, args, stdout, evalUsage, "sqlmcp eval --help", getenv); !ok {
		return nil, err
	}
	switch {
	case cfg.system != "oneshot" && cfg.system != "agent":
		return nil, usagef("--system %q: use oneshot or agent", cfg.system)
	case cfg.demo && (cfg.questions != "" || cfg.dbRoot != ""):
		return nil, usagef("--demo brings its own questions and database: give --demo, or --questions and --db-root")
	case !cfg.demo && (cfg.questions == "" || cfg.dbRoot == ""):
		return nil, usagef("no questions: pass --questions FILE and --db-root DIR, or --demo for the bundled set")
	case cfg.limit < 0:
		return nil, usagef("--limit must be 0 (all) or more, not %d", cfg.limit)
	case cfg.maxTurns < 1:
		return nil, usagef("--max-turns must be 1 or more, not %d", cfg.maxTurns)
	}
	if cfg.out == "" {
		cfg.out = "eval-" + cfg.system
	}
	newModel, err := chooseModel(&cfg.model, getenv)
	if err != nil {
		return nil, err
	}
	cfg.newModel = newModel
	return cfg, nil
}

// runEval is `sqlmcp eval`: it answers and scores the questions, and
// prints the summary.
func runEval(ctx context.Context, cfg *evalConfig, stdout, stderr io.Writer) error {
	var (
		data []byte
		err  error
	)
	dsn := func(id string) (string, error) { return filepath.Join(cfg.dbRoot, id, id+".sqlite"), nil }
	settings := func(id string) []setting {
		path, _ := dsn(id)
		return []setting{{"db", path}, {"log-level", "warn"}}
	}
	if cfg.demo {
		data = demo.Questions
		dir := cfg.cacheDir
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				return usagef("finding a cache directory for the demo: %v (set --cache-dir)", err)
			}
			dir = filepath.Join(base, "sqlmcp")
		}
		path, err := demo.Open(dir)
		if err != nil {
			return fmt.Errorf("building the demo database: %w", err)
		}
		dsn = func(id string) (string, error) {
			if id != "demo" {
				return "", fmt.Errorf("--demo has only the database demo, not %q", id)
			}
			return path, nil
		}
		// The server serves the demo with its annotations, as serve --demo does.
		settings = func(string) []setting {
			return []setting{{"demo", "true"}, {"cache-dir", dir}, {"log-level", "warn"}}
		}
	} else if data, err = os.ReadFile(cfg.questions); err != nil {
		return usagef("--questions: %v", err)
	}
	questions, err := eval.ParseQuestions(data)
	if err != nil {
		return usageError{err}
	}
	if !cfg.demo {
		for _, q := range questions {
			if path, _ := dsn(q.DB); !fileExists(path) {
				return usagef("question %d: no database %s (want DIR/<db_id>/<db_id>.sqlite under --db-root)", q.ID, path)
			}
		}
	}
	model := cfg.newModel()
	if cfg.cache != "" {
		model = agent.NewCache(cfg.cache, model)
	}
	p := newProgress(io.Discard, false)
	defer p.close()
	live := isTerminal(stderr)
	right := 0
	opts := &eval.Options{
		System:   cfg.system,
		Model:    model,
		MaxTurns: cfg.maxTurns,
		Connect: func(ctx context.Context, id string) (*mcp.ClientSession, error) {
			return connectServer(ctx, &askConfig{serve: settings(id)}, p)
		},
		DSN:   dsn,
		Out:   cfg.out,
		Limit: cfg.limit,
		OnPrediction: func(done, total int, pr *eval.Prediction) {
			if pr.Correct {
				right++
			}
			if live {
				fmt.Fprintf(stderr, "\r\033[K%d/%d questions · %d of this run's right · question %d %s", done, total, right, pr.QuestionID, verdict(pr))
			}
		},
	}
	s, err := eval.Run(ctx, questions, opts)
	if live {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	s.Print(stdout)
	fmt.Fprintf(stdout, "predictions: %s\n", filepath.Join(cfg.out, eval.PredictionsFile))
	return nil
}

func verdict(p *eval.Prediction) string {
	switch {
	case p.Correct:
		return "right"
	case p.ErrorKind != "":
		return "wrong (" + p.ErrorKind + ")"
	}
	return "wrong"
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
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
