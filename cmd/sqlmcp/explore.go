package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/term"
	"github.com/sqlmcp/sqlmcp/notes"
)

const exploreUsage = `sqlmcp explore: explore a database before any question. It walks the
schema's foreign keys (hub tables first, joins one step at a time); for each
fragment the model writes queries, which run through the guarded server, and
only those that ran and returned rows are kept, as (tables and join path,
SQL, one-line description). They go to NOTES/<name>/explored.md, a Markdown
file a person can read and edit, replacing what an earlier run found; sqlmcp
eval --system experienced --notes NOTES retrieves the most similar ones as
examples for each question.

Usage:
  sqlmcp explore --db PATH|URL --notes NOTES [flags]
  sqlmcp explore --demo --notes NOTES [flags]

The model is chosen as sqlmcp ask chooses it (see sqlmcp ask --help).

Flags (each also read from the environment variable shown; a flag wins):
`

// exploreConfig is what explore needs, from flags and environment.
type exploreConfig struct {
	dbFlags
	descriptions string
	notes, name  string
	opts         eval.ExploreOptions
	models       modelFlags
}

// parseExplore reads explore's flags, then the environment for those not
// given. It returns a nil config and no error when -help was asked for.
func parseExplore(args []string, stdout io.Writer, getenv func(string) string) (*exploreConfig, error) {
	cfg := &exploreConfig{}
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.dbFlags.define(fs, "the database to explore")
	fs.StringVar(&cfg.descriptions, "descriptions", "", "a folder of BIRD-style <table>.csv column descriptions (SQLMCP_DESCRIPTIONS; default: database_description beside a SQLite file)")
	fs.StringVar(&cfg.notes, "notes", "", "the notes folder: the queries go to NOTES/<name>/explored.md (SQLMCP_NOTES)")
	fs.StringVar(&cfg.name, "name", "", "the database's name in the notes, its db_id in question sets (SQLMCP_NAME; default: the SQLite file's name without extension, or the PostgreSQL database's name)")
	fs.IntVar(&cfg.opts.MaxFragments, "max-fragments", 40, "schema fragments (a table, or tables joined by foreign keys) to ask about in all (SQLMCP_MAX_FRAGMENTS)")
	fs.IntVar(&cfg.opts.PerFragment, "per-fragment", 3, "queries the model writes for each fragment (SQLMCP_PER_FRAGMENT)")
	fs.IntVar(&cfg.opts.PerCluster, "per-cluster", 10, "queries kept for each hub table and the tables joined from it (SQLMCP_PER_CLUSTER)")
	fs.IntVar(&cfg.opts.MaxJoins, "max-joins", 2, "the longest join path a fragment follows (SQLMCP_MAX_JOINS)")
	cfg.models.define(fs, false)
	if ok, err := parseArgs(fs, args, stdout, exploreUsage, "sqlmcp explore --help", getenv); !ok {
		return nil, err
	}
	if err := cfg.dbFlags.check("|URL, or --demo for the bundled demo"); err != nil {
		return nil, err
	}
	switch {
	case cfg.notes == "":
		return nil, usagef("no notes: pass --notes DIR; the queries go to DIR/<name>/explored.md")
	case cfg.opts.MaxFragments < 1 || cfg.opts.PerFragment < 1 || cfg.opts.PerCluster < 1:
		return nil, usagef("--max-fragments, --per-fragment and --per-cluster must be 1 or more")
	case cfg.opts.MaxJoins < 0:
		return nil, usagef("--max-joins must be 0 (single tables) or more, not %d", cfg.opts.MaxJoins)
	}
	if cfg.name == "" {
		cfg.name = "demo"
		if !cfg.demo {
			cfg.name = notes.DatabaseName(cfg.db)
		}
	}
	if !notes.PlainName(cfg.name) {
		return nil, usagef("--name %q is not a plain name: name the database as its questions' db_id does", cfg.name)
	}
	m, err := cfg.models.open(getenv)
	if err != nil {
		return nil, err
	}
	cfg.opts.Model = m
	return cfg, nil
}

// runExplore is `sqlmcp explore`: it explores the database through a
// guarded server and saves the queries that ran and returned rows.
func runExplore(ctx context.Context, cfg *exploreConfig, stdout, stderr io.Writer) error {
	settings := []setting{{"log-level", "warn"}}
	if cfg.demo {
		dir, err := cfg.demoDir()
		if err != nil {
			return err
		}
		settings = append(settings, demoSettings(dir)...)
	} else {
		settings = append(settings, setting{"db", cfg.db})
	}
	if cfg.descriptions != "" {
		settings = append(settings, setting{"descriptions", cfg.descriptions})
	}
	dir := filepath.Join(cfg.notes, cfg.name)
	book, err := notes.Load(dir)
	if err != nil {
		return fmt.Errorf("reading the notes of %s: %w", cfg.name, err)
	}
	cs, err := dial(ctx, target{settings: settings})
	if err != nil {
		return err
	}
	defer cs.Close()

	p := term.NewProgress(stderr)
	defer p.Close()
	opts := cfg.opts
	opts.OnFragment = func(done, total int, tables []string, kept int) {
		p.Show(fmt.Sprintf("%d/%d fragments · %d queries kept · %s", done, total, kept, strings.Join(tables, ", ")))
	}
	triplets, stats, err := eval.Explore(ctx, cs, &opts)
	p.Close()
	// A run cut short keeps what it found only where there was nothing
	// before: an earlier whole run is worth more than part of this one
	// (with --cache, rerunning repeats no model call).
	if err == nil || len(book.Triplets) == 0 && len(triplets) > 0 {
		book.Triplets = triplets
		if serr := book.Save(dir); serr != nil {
			return fmt.Errorf("saving the notes of %s: %w", cfg.name, serr)
		}
	}
	if stats != nil {
		fmt.Fprintf(stdout, "explored %d fragments: the model wrote %d queries; %d failed, %d returned no rows, %d kept\n",
			stats.Fragments, stats.Written, stats.Failed, stats.Empty, stats.Kept)
		fmt.Fprintf(stdout, "notes: %s\n", filepath.Join(dir, notes.ExploredFile))
	}
	return err
}
