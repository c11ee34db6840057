package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

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
  sqlmcp eval --questions FILE --dsn-template URL      the same questions against PostgreSQL:
                                                       {db_id} in URL names each database; a URL
                                                       without it is one database for all
  sqlmcp eval --demo [flags]                           the bundled question set on the demo database
  sqlmcp eval compare DIR_A DIR_B                      pair two runs' predictions: McNemar's exact test

--system oneshot makes one model call per question with the schema and no
tools; --system agent is sqlmcp ask's loop; --system experienced is the agent
with notes (--notes DIR) that sqlmcp learn and sqlmcp explore wrote: lessons
from past mistakes, solved examples and queries known to run, retrieved for
each question, never the question's own entry.

Each run writes OUT/predictions.jsonl (one line a question) and
OUT/summary.json, and prints the summary. Running the same command again
resumes: questions already in OUT/predictions.jsonl are skipped. With
--cache, a rerun makes no model calls.

The model is chosen as sqlmcp ask chooses it (see sqlmcp ask --help).

Flags (each also read from the environment variable shown; a flag wins):
`

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
  sqlmcp learn --demo --notes NOTES [flags]

Flags (each also read from the environment variable shown; a flag wins):
`

// evalConfig is what eval and learn need, from flags and environment.
type evalConfig struct {
	learn             bool // sqlmcp learn
	questions, dbRoot string
	dsnTemplate       string
	demo              bool
	cacheDir          string // where the demo is built
	system            string
	notes             string
	limit, maxTurns   int
	parallel          int
	out, cache        string
	model             askConfig // provider, model and base URL
	newModel          func() agent.Model
}

// dbIDPlaceholder is what --dsn-template replaces with each db_id.
const dbIDPlaceholder = "{db_id}"

// parseEval reads eval's flags (learn's with learn true), then the
// environment for those not given. It returns a nil config and no error
// when -help was asked for.
func parseEval(args []string, stdout io.Writer, getenv func(string) string, learn bool) (*evalConfig, error) {
	cfg := &evalConfig{learn: learn}
	name, help := "eval", evalUsage
	if learn {
		name, help = "learn", learnUsage
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.questions, "questions", "", "a JSON list of questions in BIRD's format: question_id, db_id, question, evidence, SQL, difficulty (SQLMCP_QUESTIONS)")
	fs.StringVar(&cfg.dbRoot, "db-root", "", "the databases, at DIR/<db_id>/<db_id>.sqlite, with BIRD's database_description/ beside each; with --dsn-template, only the descriptions (SQLMCP_DB_ROOT)")
	fs.StringVar(&cfg.dsnTemplate, "dsn-template", "", "a postgres:// URL with {db_id} where each question's database name goes, e.g. postgres://me@db/{db_id}; without {db_id}, one database holds every question's tables (SQLMCP_DSN_TEMPLATE)")
	fs.BoolVar(&cfg.demo, "demo", false, "the bundled question set on the demo database (SQLMCP_DEMO)")
	fs.StringVar(&cfg.cacheDir, "cache-dir", "", "--demo: where the demo database is built (SQLMCP_CACHE_DIR; default: the user cache directory)")
	fs.StringVar(&cfg.notes, "notes", "", "the notes folder, one NOTES/<db_id>/ per database: learn writes it, --system experienced reads it (SQLMCP_NOTES)")
	if !learn {
		fs.StringVar(&cfg.system, "system", "agent", "oneshot (one model call, no tools), agent (the ask loop) or experienced (the agent with --notes) (SQLMCP_SYSTEM)")
		fs.StringVar(&cfg.out, "out", "", "the directory for predictions.jsonl and summary.json (SQLMCP_OUT; default eval-SYSTEM)")
	}
	fs.IntVar(&cfg.limit, "limit", 0, "answer only the first N questions; 0 for all (SQLMCP_LIMIT)")
	fs.StringVar(&cfg.cache, "cache", "", "keep model replies in this directory, so a rerun makes no model calls (SQLMCP_CACHE)")
	fs.IntVar(&cfg.maxTurns, "max-turns", 8, "the agent's most model calls for one question (SQLMCP_MAX_TURNS)")
	fs.IntVar(&cfg.parallel, "parallel", 1, "answer this many questions at once, each with its own server (SQLMCP_PARALLEL)")
	modelFlags(fs, &cfg.model)
	if ok, err := parseArgs(fs, args, stdout, help, "sqlmcp "+name+" --help", getenv); !ok {
		return nil, err
	}
	sources := 0
	for _, given := range []bool{cfg.demo, cfg.dsnTemplate != "", cfg.dbRoot != "" && cfg.dsnTemplate == ""} {
		if given {
			sources++
		}
	}
	switch {
	case !learn && cfg.system != "oneshot" && cfg.system != "agent" && cfg.system != "experienced":
		return nil, usagef("--system %q: use oneshot, agent or experienced", cfg.system)
	case (learn || cfg.system == "experienced") && cfg.notes == "":
		return nil, usagef("no notes: pass --notes DIR, where sqlmcp learn and sqlmcp explore write (one DIR/<db_id>/ per database)")
	case cfg.demo && (cfg.questions != "" || sources > 1):
		return nil, usagef("--demo brings its own questions and database: give --demo, or --questions with --db-root or --dsn-template")
	case !cfg.demo && (cfg.questions == "" || sources == 0):
		return nil, usagef("no questions: pass --questions FILE with --db-root DIR or --dsn-template URL, or --demo for the bundled set")
	case cfg.dsnTemplate != "" && !strings.HasPrefix(cfg.dsnTemplate, "postgres://") && !strings.HasPrefix(cfg.dsnTemplate, "postgresql://"):
		return nil, usagef("--dsn-template is for PostgreSQL: a postgres:// URL (SQLite databases go under --db-root)")
	case cfg.limit < 0:
		return nil, usagef("--limit must be 0 (all) or more, not %d", cfg.limit)
	case cfg.maxTurns < 1:
		return nil, usagef("--max-turns must be 1 or more, not %d", cfg.maxTurns)
	case cfg.parallel < 1:
		return nil, usagef("--parallel must be 1 or more, not %d", cfg.parallel)
	}
	if cfg.out == "" && !learn {
		cfg.out = "eval-" + cfg.system
	}
	newModel, err := chooseModel(&cfg.model, getenv)
	if err != nil {
		return nil, err
	}
	cfg.newModel = newModel
	return cfg, nil
}

// modelFlags defines the flags that choose the model, as ask has them.
func modelFlags(fs *flag.FlagSet, cfg *askConfig) {
	fs.StringVar(&cfg.provider, "provider", "", "anthropic or openai, as for ask (SQLMCP_PROVIDER)")
	fs.StringVar(&cfg.model, "model", "", "the model, as for ask (SQLMCP_MODEL)")
	fs.StringVar(&cfg.baseURL, "base-url", "", "an OpenAI-compatible API's root, as for ask (SQLMCP_BASE_URL, or OPENAI_BASE_URL)")
}

// databases says where each question's database is: the DSN the scorer
// opens, and the settings of the server the system talks to.
type databases struct {
	dsn      func(id string) (string, error)
	settings func(id string) []setting
}

// evalDatabases finds the databases of cfg: the demo's, SQLite files under
// --db-root, or PostgreSQL databases from --dsn-template.
func evalDatabases(cfg *evalConfig) (*databases, error) {
	switch {
	case cfg.demo:
		dir, err := demoCacheDir(cfg.cacheDir)
		if err != nil {
			return nil, err
		}
		path, err := demo.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("building the demo database: %w", err)
		}
		return &databases{
			dsn: func(id string) (string, error) {
				if id != "demo" {
					return "", fmt.Errorf("--demo has only the database demo, not %q", id)
				}
				return path, nil
			},
			// The server serves the demo with its annotations, as serve --demo does.
			settings: func(string) []setting {
				return []setting{{"demo", "true"}, {"cache-dir", dir}, {"log-level", "warn"}}
			},
		}, nil
	case cfg.dsnTemplate != "":
		dsn := func(id string) (string, error) {
			return strings.ReplaceAll(cfg.dsnTemplate, dbIDPlaceholder, url.PathEscape(id)), nil
		}
		return &databases{dsn: dsn, settings: func(id string) []setting {
			u, _ := dsn(id)
			set := []setting{{"db", u}, {"log-level", "warn"}}
			if desc := filepath.Join(cfg.dbRoot, id, "database_description"); cfg.dbRoot != "" && dirExists(desc) {
				set = append(set, setting{"descriptions", desc})
			}
			return set
		}}, nil
	}
	dsn := func(id string) (string, error) { return filepath.Join(cfg.dbRoot, id, id+".sqlite"), nil }
	return &databases{dsn: dsn, settings: func(id string) []setting {
		path, _ := dsn(id)
		return []setting{{"db", path}, {"log-level", "warn"}}
	}}, nil
}

// demoCacheDir is where the demo is built: dir, or the user cache directory.
func demoCacheDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", usagef("finding a cache directory for the demo: %v (set --cache-dir)", err)
	}
	return filepath.Join(base, "sqlmcp"), nil
}

// evalQuestions reads cfg's questions and checks that each one's SQLite
// database is there.
func evalQuestions(cfg *evalConfig, dbs *databases) ([]eval.Question, error) {
	data := demo.Questions
	if !cfg.demo {
		var err error
		if data, err = os.ReadFile(cfg.questions); err != nil {
			return nil, usagef("--questions: %v", err)
		}
	}
	questions, err := eval.ParseQuestions(data)
	if err != nil {
		return nil, usageError{err}
	}
	if !cfg.demo && cfg.dsnTemplate == "" {
		for _, q := range questions {
			if path, _ := dbs.dsn(q.DB); !fileExists(path) {
				return nil, usagef("question %d: no database %s (want DIR/<db_id>/<db_id>.sqlite under --db-root)", q.ID, path)
			}
		}
	}
	return questions, nil
}

// cachedModel is a new model, behind the reply cache in dir unless dir
// is "".
func cachedModel(newModel func() agent.Model, dir string) agent.Model {
	if dir == "" {
		return newModel()
	}
	return agent.NewCache(dir, newModel())
}

// evalRun is what eval and learn share: the questions, their databases,
// and a way to start a server for each.
type evalRun struct {
	questions []eval.Question
	dbs       *databases
	connect   func(ctx context.Context, id string) (*mcp.ClientSession, error)
	close     func()
}

func newEvalRun(cfg *evalConfig) (*evalRun, error) {
	if cfg.notes != "" && !cfg.learn && !dirExists(cfg.notes) {
		return nil, usagef("--notes %s: no such folder; sqlmcp learn and sqlmcp explore write it", cfg.notes)
	}
	dbs, err := evalDatabases(cfg)
	if err != nil {
		return nil, err
	}
	questions, err := evalQuestions(cfg, dbs)
	if err != nil {
		return nil, err
	}
	p := newProgress(io.Discard, false)
	return &evalRun{questions: questions, dbs: dbs, close: p.close,
		connect: func(ctx context.Context, id string) (*mcp.ClientSession, error) {
			return connectServer(ctx, &askConfig{serve: dbs.settings(id)}, p)
		}}, nil
}

// runEval is `sqlmcp eval`: it answers and scores the questions, and
// prints the summary.
func runEval(ctx context.Context, cfg *evalConfig, stdout, stderr io.Writer) error {
	r, err := newEvalRun(cfg)
	if err != nil {
		return err
	}
	defer r.close()
	live := isTerminal(stderr)
	right := 0
	opts := &eval.Options{
		System:   cfg.system,
		Model:    cachedModel(cfg.newModel, cfg.cache),
		MaxTurns: cfg.maxTurns,
		Notes:    cfg.notes,
		Connect:  r.connect,
		DSN:      r.dbs.dsn,
		Out:      cfg.out,
		Limit:    cfg.limit,
		Parallel: cfg.parallel,
		OnPrediction: func(done, total int, pr *eval.Prediction) {
			if pr.Correct {
				right++
			}
			if live {
				fmt.Fprintf(stderr, "\r\033[K%d/%d questions · %d of this run's right · question %d %s", done, total, right, pr.QuestionID, verdict(pr))
			}
		},
	}
	s, err := eval.Run(ctx, r.questions, opts)
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

// runLearn is `sqlmcp learn`: the agent answers the training questions and
// writes lessons and examples into the notes.
func runLearn(ctx context.Context, cfg *evalConfig, stdout, stderr io.Writer) error {
	r, err := newEvalRun(cfg)
	if err != nil {
		return err
	}
	defer r.close()
	live := isTerminal(stderr)
	opts := &eval.LearnOptions{
		Model:    cachedModel(cfg.newModel, cfg.cache),
		MaxTurns: cfg.maxTurns,
		Notes:    cfg.notes,
		Connect:  r.connect,
		DSN:      r.dbs.dsn,
		Limit:    cfg.limit,
		Parallel: cfg.parallel,
		OnQuestion: func(done, total int, pr *eval.Prediction, learned string) {
			if live {
				fmt.Fprintf(stderr, "\r\033[K%d/%d questions · question %d %s: %s", done, total, pr.QuestionID, verdict(pr), learned)
			}
		},
	}
	s, err := eval.Learn(ctx, r.questions, opts)
	if live {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if s != nil {
		fmt.Fprintf(stdout, "learned from %d questions: %d examples, %d lessons; %d skipped (the gold SQL failed); %d already in the notes\n",
			s.Questions, s.Examples, s.Lessons, s.Skipped, s.Known)
		fmt.Fprintf(stdout, "notes: %s\n", cfg.notes)
	}
	return err
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

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
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
