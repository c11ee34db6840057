package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/term"
	"github.com/sqlmcp/sqlmcp/notes"
)

const askUsage = `sqlmcp ask: answer questions about a database in plain words. A model writes
and tests SQL through sqlmcp's tools; you see its answer, the SQL and the result.

Usage:
  sqlmcp ask --db PATH|URL [flags] [QUESTION]      start sqlmcp serve on the database and ask it
  sqlmcp ask --demo [flags] [QUESTION]             ask the bundled demo database
  sqlmcp ask --server URL [--token T] [QUESTION]   ask a running sqlmcp serve --http

With no QUESTION, ask reads one question per line from stdin until EOF.

With --notes DIR, the agent is the experienced one of sqlmcp eval: each
question's prompt holds the lessons, solved examples and explored queries
that sqlmcp learn and sqlmcp explore wrote for this database in DIR/<name>/.

The model: set ANTHROPIC_API_KEY for Claude (default model %s), or
OPENAI_API_KEY for OpenAI (default model %s), or give --base-url for any
OpenAI-compatible server, with the model it runs, e.g. ollama:
  sqlmcp ask --demo --base-url http://localhost:11434/v1 --model qwen3:8b "how many schools are charters?"
A model call that gets no reply within --model-timeout (default 2m) fails with a message saying so.

Flags (each also read from the environment variable shown; a flag wins):
`

// noModel is what ask says when no model is configured.
var noModel = agent.ErrNoModel.Error()

// serveFlags are serve's flags that ask takes and hands to its server.
var serveFlags = []string{"db", "config", "demo", "annotations", "descriptions", "schema", "require-readonly-role", "cache-dir", "timeout",
	"max-rows", "max-rows-limit", "max-bytes", "max-cell-bytes", "max-concurrency", "log-level"}

// askConfig is what ask needs, from flags and environment.
type askConfig struct {
	server        target // a running server, or the settings of the one ask starts
	models        modelFlags
	model         agent.Model // worked out by parseAsk
	hint          string
	maxTurns      int
	verbose, json bool
	trace, chart  string
	question      string // "" for questions from stdin
	notes, name   string // --notes: DIR/<name>/ holds the database's notes
}

// parseAsk reads ask's flags, then the environment for those not given,
// and checks them. It returns a nil config and no error when -help was
// asked for.
func parseAsk(args []string, stdout io.Writer, getenv func(string) string) (*askConfig, error) {
	cfg := &askConfig{}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.server.url, "server", "", "ask a running sqlmcp serve --http at this URL (its /mcp endpoint) instead of starting one (SQLMCP_SERVER)")
	fs.StringVar(&cfg.server.database, "database", "", "on a server of several databases (--config, or --server), the one to ask: every tool call names it; without it the model chooses one from the question and says which (SQLMCP_DATABASE)")
	fs.StringVar(&cfg.server.token, "token", "", "--server: the bearer token to send; prefer the environment variable, since a flag's value shows in ps (SQLMCP_TOKEN)")
	cfg.models.define(fs, true)
	fs.StringVar(&cfg.hint, "hint", "", "outside knowledge the question needs, such as what a code means (SQLMCP_HINT)")
	fs.IntVar(&cfg.maxTurns, "max-turns", 8, "the most model calls for one question; the last is told to submit (SQLMCP_MAX_TURNS)")
	fs.BoolVar(&cfg.verbose, "verbose", false, "show each model and tool call on stderr as it happens, and the server's log (SQLMCP_VERBOSE)")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object per question: question, sql, answer, columns, rows, turns, tokens, seconds (SQLMCP_JSON)")
	fs.StringVar(&cfg.trace, "trace", "", "write every model and tool call to this file as JSON lines, with tokens and timing (SQLMCP_TRACE)")
	fs.StringVar(&cfg.notes, "notes", "", "the notes sqlmcp learn and sqlmcp explore wrote, one DIR/<name>/ per database: the agent reads this database's (SQLMCP_NOTES)")
	fs.StringVar(&cfg.name, "name", "", "--notes: the database's name there (SQLMCP_NAME; default: the SQLite file's name without extension, the PostgreSQL database's name, or demo)")
	fs.StringVar(&cfg.chart, "chart", "", "draw the result as a bar or line chart into this .svg or .png file (SQLMCP_CHART)")

	// serve's own flag values, so checks and help text are serve's.
	serveCfg := &config{}
	sfs := newFlags(serveCfg, io.Discard)
	sfs.Lookup("log-level").Value.Set("warn")
	for _, name := range serveFlags {
		f := sfs.Lookup(name)
		usage := f.Usage
		if name == "log-level" {
			usage = "the server's log level; its log shows with --verbose (SQLMCP_LOG_LEVEL)"
		}
		fs.Var(f.Value, name, usage)
	}

	// Flags first, words of the question between them allowed.
	var words []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			help := fmt.Sprintf(askUsage, agent.DefaultAnthropicModel, agent.DefaultOpenAIModel)
			return nil, parseError(fs, err, stdout, help, "sqlmcp ask --help")
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if n := len(rest) - len(left); n > 0 && rest[n-1] == "--" {
			words = append(words, left...)
			break
		}
		words, rest = append(words, left[0]), left[1:]
	}
	cfg.question = strings.TrimSpace(strings.Join(words, " "))
	given := map[string]bool{} // on the command line, not from the environment
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := fillFromEnv(fs, getenv); err != nil {
		return nil, err
	}

	if cfg.maxTurns < 1 {
		return nil, usagef("--max-turns must be 1 or more, not %d", cfg.maxTurns)
	}
	if ext := strings.ToLower(filepath.Ext(cfg.chart)); cfg.chart != "" && ext != ".svg" && ext != ".png" {
		return nil, usagef("--chart %q: the file must end in .svg or .png", cfg.chart)
	}
	if cfg.server.url != "" {
		if err := checkServerURL(cfg, given); err != nil {
			return nil, err
		}
	} else {
		if given["token"] {
			return nil, usagef("--token is for --server")
		}
		if serveCfg.configFile == "" {
			if err := serveCfg.dbFlags.check(" (or set SQLMCP_DB), --config FILE, --demo for the bundled demo, or --server URL for a running sqlmcp serve --http"); err != nil {
				return nil, err
			}
		}
		fs.Visit(func(f *flag.Flag) {
			if sfs.Lookup(f.Name) != nil && f.Name != "log-level" {
				cfg.server.settings = append(cfg.server.settings, setting{f.Name, f.Value.String()})
			}
		})
		cfg.server.settings = append(cfg.server.settings, setting{"log-level", serveCfg.logLevel})
		// The server's own checks, before it is started.
		if err := serveCfg.check(); err != nil {
			return nil, err
		}
		if cfg.notes != "" && cfg.name == "" {
			cfg.name = "demo"
			if !serveCfg.demo {
				cfg.name = notes.DatabaseName(serveCfg.db)
			}
		}
	}
	if err := checkNotes(cfg.notes, cfg.name); err != nil {
		return nil, err
	}
	var err error
	if cfg.model, err = cfg.models.open(getenv); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkServerURL checks --server and what goes with it, and writes its
// /mcp endpoint in.
func checkServerURL(cfg *askConfig, given map[string]bool) error {
	for _, name := range serveFlags {
		if given[name] {
			return usagef("--%s is for the server ask starts; with --server, the running server has its own settings", name)
		}
	}
	u, err := url.Parse(cfg.server.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--server %q is not an http:// or https:// URL, as http://127.0.0.1:8080/mcp", cfg.server.url)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	cfg.server.url = u.String()
	if cfg.notes != "" && cfg.name == "" {
		return usagef("--notes with --server needs --name: the running server's database, as its notes folder names it")
	}
	return nil
}

// checkNotes checks --notes and --name together.
func checkNotes(dir, name string) error {
	switch {
	case dir == "" && name != "":
		return usagef("--name is for --notes")
	case dir == "":
		return nil
	case !notes.PlainName(name):
		return usagef("--name %q is not a plain name: name the database as its notes folder does", name)
	case !dirExists(filepath.Join(dir, name)):
		return usagef("--notes: no notes for %s at %s; sqlmcp learn and sqlmcp explore write them (or give --name)", name, filepath.Join(dir, name))
	}
	return nil
}

// ask answers the question, or each line of stdin, and prints the answers.
func ask(ctx context.Context, cfg *askConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	p := &progress{Progress: term.NewProgress(stderr), verbose: cfg.verbose}
	defer p.Close()
	if cfg.verbose {
		where := cfg.server.url
		if where == "" {
			where = "sqlmcp serve" + describeSettings(cfg.server.settings)
		}
		p.Line(fmt.Sprintf("model %s · server %s", cfg.model.Name(), where))
		cfg.server.log = p.Writer()
	}
	p.Status("starting the server")
	cs, err := dial(ctx, cfg.server)
	if err != nil {
		return err
	}
	defer cs.Close()

	opts := &agent.Options{Model: cfg.model, MaxTurns: cfg.maxTurns, OnEvent: p.event}
	if cfg.trace != "" {
		f, err := os.Create(cfg.trace)
		if err != nil {
			return usagef("--trace: %v", err)
		}
		defer f.Close()
		opts.Trace = f
	}
	var book *notes.Notes
	if cfg.notes != "" {
		if book, err = notes.Load(filepath.Join(cfg.notes, cfg.name)); err != nil {
			return usageError{fmt.Errorf("--notes: %w", err)}
		}
	}
	p.Status("reading the schema")
	a, err := agent.New(ctx, cs, opts)
	if err != nil {
		return fmt.Errorf("preparing the agent: %w", err)
	}
	p.Status("")
	if dbs := a.Databases(); cfg.verbose && len(dbs) > 0 {
		names := make([]string, len(dbs))
		for i, d := range dbs {
			names[i] = d.Name
		}
		p.Line("the model chooses among the databases " + strings.Join(names, ", "))
	}

	one := func(question string) error {
		known := book.Prompt(notes.Query{ID: notes.NoQuestion, Question: question, Hint: cfg.hint}, 0)
		if cfg.verbose && known != "" {
			p.Line(fmt.Sprintf("notes: %d bytes from %s", len(known), filepath.Join(cfg.notes, cfg.name)))
		}
		p.Status("turn 1 · model")
		ans, err := a.AskWithNotes(ctx, question, cfg.hint, known)
		p.Status("")
		if err != nil {
			return err
		}
		return printResult(stdout, stderr, p, cfg, ans)
	}
	if cfg.question != "" {
		return one(cfg.question)
	}

	// One question per line, with one server and agent for them all.
	prompt := term.IsTerminal(stdin)
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	first := true
	for {
		if prompt {
			fmt.Fprint(stderr, "? ")
		}
		if !sc.Scan() {
			break
		}
		q := strings.TrimSpace(sc.Text())
		if q == "" {
			continue
		}
		if !first && !cfg.json {
			fmt.Fprintln(stdout)
		}
		first = false
		if err := one(q); err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(stderr, "sqlmcp: %v\n", err)
		}
	}
	if prompt {
		fmt.Fprintln(stderr)
	}
	return sc.Err()
}
