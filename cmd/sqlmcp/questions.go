package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/source"
)

// The flag group eval and learn share: a question set, the databases its
// questions are about, the notes folder, and how the agent runs.

// dbIDPlaceholder is what --dsn-template replaces with each db_id.
const dbIDPlaceholder = "{db_id}"

// questionFlags choose the questions and their databases.
type questionFlags struct {
	questions, dbRoot, dsnTemplate string
	db                             string // every question's database
	demo                           bool
	cacheDir                       string // where the demo is built
	notes                          string
	limit, maxTurns, parallel      int
	models                         modelFlags
	model                          agent.Model // chosen by check
}

func (f *questionFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.questions, "questions", "", "a JSON list of questions in BIRD's format: question_id, db_id, question, evidence, SQL, difficulty (SQLMCP_QUESTIONS)")
	fs.StringVar(&f.dbRoot, "db-root", "", "the databases, at DIR/<db_id>/<db_id>.sqlite, with BIRD's database_description/ beside each; with --dsn-template, only the descriptions (SQLMCP_DB_ROOT)")
	fs.StringVar(&f.dsnTemplate, "dsn-template", "", "a postgres:// or mysql:// URL with {db_id} where each question's database name goes, e.g. postgres://me@db/{db_id}; without {db_id}, one database holds every question's tables (SQLMCP_DSN_TEMPLATE)")
	fs.StringVar(&f.db, "db", "", "one database for every question, a file, folder or URL as serve --db takes it; with --demo, a copy of the demo (sqlmcp demo --mysql or --parquet); not with --db-root or --dsn-template (SQLMCP_DB)")
	fs.BoolVar(&f.demo, "demo", false, "the bundled question set, on the demo database or the copy --db names (SQLMCP_DEMO)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "--demo: where the demo database is built (SQLMCP_CACHE_DIR; default: the user cache directory)")
	fs.StringVar(&f.notes, "notes", "", "the notes folder, one NOTES/<db_id>/ per database: learn writes it, --system experienced reads it (SQLMCP_NOTES)")
	fs.IntVar(&f.limit, "limit", 0, "answer only the first N questions; 0 for all (SQLMCP_LIMIT)")
	fs.IntVar(&f.maxTurns, "max-turns", 8, "the agent's most model calls for one question (SQLMCP_MAX_TURNS)")
	fs.IntVar(&f.parallel, "parallel", 1, "answer this many questions at once, each with its own server (SQLMCP_PARALLEL)")
	f.models.define(fs, false)
}

// check says what is wrong with the question set, and chooses the model;
// needNotes is true when the command reads or writes notes.
func (f *questionFlags) check(needNotes bool, getenv func(string) string) error {
	switch {
	case needNotes && f.notes == "":
		return usagef("no notes: pass --notes DIR, where sqlmcp learn and sqlmcp explore write (one DIR/<db_id>/ per database)")
	case f.demo && (f.questions != "" || f.dsnTemplate != "" || f.dbRoot != ""):
		return usagef("--demo brings its own questions and database: give --demo (with --db for a copy of the demo), or --questions with --db-root, --dsn-template or --db")
	case !f.demo && (f.questions == "" || f.dbRoot == "" && f.dsnTemplate == "" && f.db == ""):
		return usagef("no questions: pass --questions FILE with --db-root DIR, --dsn-template URL or --db, or --demo for the bundled set")
	case f.db != "" && (f.dsnTemplate != "" || f.dbRoot != ""):
		return usagef("give --db (one database for every question), --dsn-template or --db-root (one a db_id), not two (--db may come from SQLMCP_DB)")
	case f.dsnTemplate != "" && !serverURL(f.dsnTemplate):
		return usagef("--dsn-template is for database servers: a postgres:// or mysql:// URL (SQLite databases go under --db-root)")
	case f.limit < 0:
		return usagef("--limit must be 0 (all) or more, not %d", f.limit)
	case f.maxTurns < 1:
		return usagef("--max-turns must be 1 or more, not %d", f.maxTurns)
	case f.parallel < 1:
		return usagef("--parallel must be 1 or more, not %d", f.parallel)
	}
	var err error
	f.model, err = f.models.open(getenv)
	return err
}

// questionRun is what a run over the question set needs: the questions,
// the scorer's DSN for each database, and a way to start a
// server for each.
type questionRun struct {
	questions []eval.Question
	dsn       func(id string) (string, error)
	connect   func(ctx context.Context, id string) (*mcp.ClientSession, error)
	// engines open the scorer's databases: this build's, DuckDB's
	// with its default budgets.
	engines []source.Engine
}

// open reads the questions, finds their databases (the demo's, SQLite
// files under --db-root, databases on a server from --dsn-template, or
// the one --db names).
func (f *questionFlags) open() (*questionRun, error) {
	var settings func(id string) []setting
	r := &questionRun{engines: engines(&conf.Source{})}
	switch {
	case f.demo && f.db == "":
		dir, err := (&dbFlags{cacheDir: f.cacheDir}).demoDir()
		if err != nil {
			return nil, err
		}
		path, err := demo.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("building the demo database: %w", err)
		}
		r.dsn = func(id string) (string, error) {
			if id != "demo" {
				return "", fmt.Errorf("--demo has only the database demo, not %q", id)
			}
			return path, nil
		}
		settings = func(string) []setting { return demoSettings(dir) }
	case f.dsnTemplate != "" || f.db != "":
		r.dsn = func(id string) (string, error) {
			if f.db != "" {
				return f.db, nil
			}
			return strings.ReplaceAll(f.dsnTemplate, dbIDPlaceholder, url.PathEscape(id)), nil
		}
		settings = func(id string) []setting {
			u, _ := r.dsn(id)
			set := []setting{{"db", u}}
			if desc := filepath.Join(f.dbRoot, id, "database_description"); f.dbRoot != "" && dirExists(desc) {
				set = append(set, setting{"descriptions", desc})
			}
			return set
		}
	default:
		r.dsn = func(id string) (string, error) { return filepath.Join(f.dbRoot, id, id+".sqlite"), nil }
		settings = func(id string) []setting {
			path, _ := r.dsn(id)
			return []setting{{"db", path}}
		}
	}
	r.connect = func(ctx context.Context, id string) (*mcp.ClientSession, error) {
		return dial(ctx, target{settings: append(settings(id), setting{"log-level", "warn"})})
	}
	data := demo.Questions
	if !f.demo {
		var err error
		if data, err = os.ReadFile(f.questions); err != nil {
			return nil, usagef("--questions: %v", err)
		}
	}
	var err error
	if r.questions, err = eval.ParseQuestions(data); err != nil {
		return nil, usageError{err}
	}
	if f.dbRoot != "" && f.dsnTemplate == "" && f.db == "" {
		for _, q := range r.questions {
			if path, _ := r.dsn(q.DB); !fileExists(path) {
				return nil, usagef("question %d: no database %s (want DIR/<db_id>/<db_id>.sqlite under --db-root)", q.ID, path)
			}
		}
	}
	return r, nil
}

// serverURL reports whether dsn names a database server by URL.
func serverURL(dsn string) bool {
	for _, p := range []string{"postgres://", "postgresql://", "mysql://", "mariadb://"} {
		if strings.HasPrefix(dsn, p) {
			return true
		}
	}
	return false
}

// verdict words a prediction for the status line.
func verdict(p *eval.Prediction) string {
	switch {
	case p.Correct:
		return "right"
	case p.ErrorKind != "":
		return "wrong (" + p.ErrorKind + ")"
	}
	return "wrong"
}
