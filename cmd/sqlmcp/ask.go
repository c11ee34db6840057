package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/chart"
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

Flags (each also read from the environment variable shown; a flag wins):
`

// noModel is what ask says when no model is configured.
var noModel = agent.ErrNoModel.Error()

// serveFlags are serve's flags that ask takes too and hands to the server
// it starts.
var serveFlags = []string{"db", "demo", "annotations", "descriptions", "schema", "require-readonly-role", "cache-dir", "timeout",
	"max-rows", "max-rows-limit", "max-bytes", "max-cell-bytes", "max-concurrency", "log-level"}

// tableRows is how many rows of the result ask prints.
const tableRows = 20

// serverCommand returns the command that runs this binary as `sqlmcp
// serve` with settings. They travel as SQLMCP_* variables, not flags, so a
// database URL stays out of ps; no other SQLMCP_* variable reaches the
// server. Tests replace it to run the test binary as sqlmcp.
var serverCommand = func(settings []setting) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the server: %w", err)
	}
	cmd := exec.Command(exe, "serve")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SQLMCP_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, s := range settings {
		cmd.Env = append(cmd.Env, envName(s.name)+"="+s.value)
	}
	return cmd, nil
}

// setting is one of serve's flags, set.
type setting struct{ name, value string }

// askConfig is what ask needs, from flags and environment.
type askConfig struct {
	serverURL string // a running server's /mcp; "" to start one
	token     string
	serve     []setting // for the server ask starts

	provider, model, baseURL string
	modelTimeout             time.Duration
	hint                     string
	maxTurns                 int
	verbose, json            bool
	trace, cache, chart      string
	question                 string // "" for questions from stdin
	notes, name              string // --notes: DIR/<name>/ holds the database's notes

	newModel func() agent.Model // the model, worked out by parseAsk
}

// parseAsk reads ask's flags, then the environment for those not given,
// and checks them. It returns a nil config and no error when -help was
// asked for.
func parseAsk(args []string, stdout io.Writer, getenv func(string) string) (*askConfig, error) {
	cfg := &askConfig{}
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.serverURL, "server", "", "ask a running sqlmcp serve --http at this URL (its /mcp endpoint) instead of starting one (SQLMCP_SERVER)")
	fs.StringVar(&cfg.token, "token", "", "--server: the bearer token to send; prefer the environment variable, since a flag's value shows in ps (SQLMCP_TOKEN)")
	fs.StringVar(&cfg.provider, "provider", "", "anthropic or openai (SQLMCP_PROVIDER; default: anthropic when ANTHROPIC_API_KEY is set, openai with --base-url or OPENAI_API_KEY)")
	fs.StringVar(&cfg.model, "model", "", fmt.Sprintf("the model (SQLMCP_MODEL; default %s for anthropic, OPENAI_MODEL or %s for openai; needed with --base-url)",
		agent.DefaultAnthropicModel, agent.DefaultOpenAIModel))
	fs.StringVar(&cfg.baseURL, "base-url", "", "an OpenAI-compatible API's root, as http://localhost:11434/v1 for ollama; with --provider anthropic, the Messages API's root (SQLMCP_BASE_URL, or OPENAI_BASE_URL)")
	fs.StringVar(&cfg.hint, "hint", "", "outside knowledge the question needs, such as what a code means (SQLMCP_HINT)")
	fs.IntVar(&cfg.maxTurns, "max-turns", 8, "the most model calls for one question; the last is told to submit (SQLMCP_MAX_TURNS)")
	fs.BoolVar(&cfg.verbose, "verbose", false, "show each model and tool call on stderr as it happens, and the server's log (SQLMCP_VERBOSE)")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON object per question: question, sql, answer, columns, rows, turns, tokens, seconds (SQLMCP_JSON)")
	fs.StringVar(&cfg.trace, "trace", "", "write every model and tool call to this file as JSON lines, with tokens and timing (SQLMCP_TRACE)")
	fs.StringVar(&cfg.cache, "cache", "", "keep model replies in this directory, so asking again makes no model calls (SQLMCP_CACHE)")
	fs.StringVar(&cfg.notes, "notes", "", "the notes sqlmcp learn and sqlmcp explore wrote, one DIR/<name>/ per database: the agent reads this database's (SQLMCP_NOTES)")
	fs.StringVar(&cfg.name, "name", "", "--notes: the database's name there (SQLMCP_NAME; default: the SQLite file's name without extension, the PostgreSQL database's name, or demo)")
	fs.StringVar(&cfg.chart, "chart", "", "draw the result as a bar or line chart into this .svg or .png file (SQLMCP_CHART)")

	// serve's own flag values, so checks and help text are serve's.
	sfs := newFlags(&config{}, io.Discard)
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
	if cfg.serverURL != "" {
		for _, name := range serveFlags {
			if given[name] {
				return nil, usagef("--%s is for the server ask starts; with --server, the running server has its own settings", name)
			}
		}
		u, err := url.Parse(cfg.serverURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("--server %q is not an http:// or https:// URL, as http://127.0.0.1:8080/mcp", cfg.serverURL)
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/mcp"
		}
		cfg.serverURL = u.String()
		if cfg.notes != "" && cfg.name == "" {
			return nil, usagef("--notes with --server needs --name: the running server's database, as its notes folder names it")
		}
	} else {
		if given["token"] {
			return nil, usagef("--token is for --server")
		}
		db, demo := sfs.Lookup("db").Value.String(), sfs.Lookup("demo").Value.String() == "true"
		if db == "" && !demo {
			return nil, usagef("no database: pass --db PATH (or set SQLMCP_DB), --demo for the bundled demo, or --server URL for a running sqlmcp serve --http")
		}
		env := map[string]string{}
		fs.Visit(func(f *flag.Flag) {
			if sfs.Lookup(f.Name) != nil && f.Name != "log-level" {
				cfg.serve = append(cfg.serve, setting{f.Name, f.Value.String()})
				env[envName(f.Name)] = f.Value.String()
			}
		})
		level := sfs.Lookup("log-level").Value.String()
		cfg.serve = append(cfg.serve, setting{"log-level", level})
		env[envName("log-level")] = level
		// The server's own checks, before it is started.
		if _, err := parseServe(nil, io.Discard, func(k string) string { return env[k] }); err != nil {
			return nil, err
		}
		if cfg.notes != "" && cfg.name == "" {
			cfg.name = databaseName(db, demo)
		}
	}
	if cfg.notes == "" && cfg.name != "" {
		return nil, usagef("--name is for --notes")
	}
	if cfg.notes != "" {
		if !notes.PlainName(cfg.name) {
			return nil, usagef("--name %q is not a plain name: name the database as its notes folder does", cfg.name)
		}
		if dir := filepath.Join(cfg.notes, cfg.name); !dirExists(dir) {
			return nil, usagef("--notes: no notes for %s at %s; sqlmcp learn and sqlmcp explore write them (or give --name)", cfg.name, dir)
		}
	}
	newModel, err := chooseModel(cfg, getenv)
	if err != nil {
		return nil, err
	}
	cfg.newModel = newModel
	return cfg, nil
}

// chooseModel picks the model from the flags and the provider's
// environment variables; a mistake is a usage error.
func chooseModel(cfg *askConfig, getenv func(string) string) (func() agent.Model, error) {
	m, err := agent.ChooseModel(agent.ModelConfig{Provider: cfg.provider, Model: cfg.model, BaseURL: cfg.baseURL, Timeout: cfg.modelTimeout}, getenv)
	if err != nil {
		return nil, usageError{err}
	}
	return func() agent.Model { return m }, nil
}

// ask answers the question, or each line of stdin, and prints the answers.
func ask(ctx context.Context, cfg *askConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	model := cachedModel(cfg.newModel, cfg.cache)
	p := newProgress(stderr, cfg.verbose)
	defer p.close()
	if cfg.verbose {
		where := cfg.serverURL
		if where == "" {
			where = "sqlmcp serve" + describeSettings(cfg.serve)
		}
		p.line(fmt.Sprintf("model %s · server %s", model.Name(), where))
	}
	p.status("starting the server")
	cs, err := connectServer(ctx, cfg, p)
	if err != nil {
		return err
	}
	defer cs.Close()

	opts := &agent.Options{Model: model, MaxTurns: cfg.maxTurns, OnEvent: p.event}
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
	p.status("reading the schema")
	a, err := agent.New(ctx, cs, opts)
	if err != nil {
		return fmt.Errorf("preparing the agent: %w", err)
	}
	p.status("")

	one := func(question string) error {
		known := book.Prompt(notes.Query{ID: notes.NoQuestion, Question: question, Hint: cfg.hint}, 0)
		if cfg.verbose && known != "" {
			p.line(fmt.Sprintf("notes: %d bytes from %s", len(known), filepath.Join(cfg.notes, cfg.name)))
		}
		p.status("turn 1 · model")
		ans, err := a.AskWithNotes(ctx, question, cfg.hint, known)
		p.status("")
		if err != nil {
			return err
		}
		if cfg.json {
			err = printJSON(stdout, ans, model.Name())
		} else {
			printAnswer(stdout, ans)
		}
		if cfg.verbose {
			tokens := ans.Usage.Input + ans.Usage.Output + ans.Usage.CacheRead + ans.Usage.CacheWrite
			p.line(fmt.Sprintf("%d turns · %d tokens (%d cached) · %.1f s", ans.Turns, tokens, ans.Usage.CacheRead, ans.Seconds))
		}
		if cfg.chart != "" {
			if cerr := chart.Write(cfg.chart, ans.Columns, ans.Rows); cerr != nil {
				fmt.Fprintf(stderr, "sqlmcp: no chart: %v\n", cerr)
			} else if !cfg.json {
				fmt.Fprintf(stdout, "Chart: %s\n", cfg.chart)
			}
		}
		return err
	}
	if cfg.question != "" {
		return one(cfg.question)
	}

	// One question per line, with one server and agent for them all.
	prompt := isTerminal(stdin)
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

// connectServer starts sqlmcp serve as a subprocess and connects to it over
// stdio, or connects to --server over streamable HTTP.
func connectServer(ctx context.Context, cfg *askConfig, p *progress) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "sqlmcp-ask", Version: buildVersion()}, nil)
	if cfg.serverURL != "" {
		base := http.DefaultTransport.(*http.Transport).Clone()
		var rt http.RoundTripper = base
		if cfg.token != "" {
			rt = bearerAuth{cfg.token, base}
		}
		t := &mcp.StreamableClientTransport{Endpoint: cfg.serverURL, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}
		cs, err := client.Connect(ctx, t, nil)
		if err != nil {
			if strings.Contains(err.Error(), "Unauthorized") {
				what := "the server wants a token"
				if cfg.token != "" {
					what = "the server refused the token"
				}
				return nil, fmt.Errorf("connecting to %s: %s: pass --token or set SQLMCP_TOKEN (%w)", cfg.serverURL, what, err)
			}
			return nil, fmt.Errorf("connecting to %s: %w", cfg.serverURL, err)
		}
		return cs, nil
	}
	cmd, err := serverCommand(cfg.serve)
	if err != nil {
		return nil, err
	}
	// The server's stderr is its log: shown with --verbose, and its last
	// lines kept to say why it stopped.
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stderr = tail
	if cfg.verbose {
		cmd.Stderr = io.MultiWriter(tail, p.writer())
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil {
		return cs, nil
	}
	// A failed connect has closed the session and waited for the server.
	msg := tail.lastLine()
	if msg == "" {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 2 {
		return nil, usageError{errors.New(msg)}
	}
	return nil, fmt.Errorf("starting the server: %s", msg)
}

// bearerAuth adds a bearer token to every request.
type bearerAuth struct {
	token string
	base  http.RoundTripper
}

func (b bearerAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// lastLine returns the server's last words: its last line, without the
// "sqlmcp: " that main puts before an error.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "sqlmcp: ")
}

// printAnswer prints the answer, the SQL and the first rows of its result.
func printAnswer(w io.Writer, ans *agent.Answer) {
	if !ans.Submitted {
		fmt.Fprintln(w, "Note: the model did not submit an answer; this is the last query that ran.")
	}
	if t := strings.TrimSpace(ans.Text); t != "" {
		fmt.Fprintln(w, t)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "SQL:")
	for _, l := range strings.Split(strings.TrimSpace(ans.SQL), "\n") {
		fmt.Fprintln(w, "  "+strings.TrimRight(l, " \t\r"))
	}
	fmt.Fprintln(w)
	printTable(w, ans)
}

// printTable prints the result as an aligned table, psql's way, of at most
// tableRows rows, and says how many there are.
func printTable(w io.Writer, ans *agent.Answer) {
	rows := ans.Rows
	if len(rows) > tableRows {
		rows = rows[:tableRows]
	}
	widths := make([]int, len(ans.Columns))
	right := make([]bool, len(ans.Columns))
	cells := make([][]string, len(rows))
	for c, name := range ans.Columns {
		widths[c] = utf8.RuneCountInString(name)
		right[c] = true
	}
	for r, row := range rows {
		cells[r] = make([]string, len(ans.Columns))
		for c := range ans.Columns {
			var v any
			if c < len(row) {
				v = row[c]
			}
			cells[r][c] = cell(v)
			widths[c] = max(widths[c], utf8.RuneCountInString(cells[r][c]))
			switch v.(type) {
			case nil, float64, json.Number, int64, int:
			default:
				right[c] = false
			}
		}
	}
	pad := func(s string, c int, alignRight bool) string {
		gap := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(s))
		if alignRight {
			return gap + s
		}
		return s + gap
	}
	line := func(vals []string, header bool) {
		parts := make([]string, len(vals))
		for c, v := range vals {
			parts[c] = " " + pad(v, c, right[c] && !header) + " "
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, "|"), " "))
	}
	if len(ans.Columns) > 0 {
		line(ans.Columns, true)
		dashes := make([]string, len(ans.Columns))
		for c := range dashes {
			dashes[c] = strings.Repeat("-", widths[c]+2)
		}
		fmt.Fprintln(w, strings.Join(dashes, "+"))
		for _, r := range cells {
			line(r, false)
		}
	}
	total := max(ans.RowCount, len(ans.Rows))
	var note string
	switch {
	case len(rows) < total:
		note = fmt.Sprintf("first %d of %d rows", len(rows), total)
	case total == 1:
		note = "1 row"
	default:
		note = fmt.Sprintf("%d rows", total)
	}
	if ans.Truncated {
		note += fmt.Sprintf("; the server cut the result at %d rows, and there are more", total)
	}
	fmt.Fprintf(w, "(%s)\n", note)
}

// cell renders a value for the table on one line.
func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		s = x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool, json.Number, int, int64:
		return fmt.Sprint(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		s = string(b)
	}
	s = strings.NewReplacer("\r\n", "↵", "\n", "↵", "\r", "↵", "\t", " ").Replace(s)
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return s
}

// answerJSON is --json's output.
type answerJSON struct {
	Question  string      `json:"question"`
	Hint      string      `json:"hint,omitempty"`
	SQL       string      `json:"sql"`
	Answer    string      `json:"answer"`
	Submitted bool        `json:"submitted"`
	Columns   []string    `json:"columns"`
	Rows      [][]any     `json:"rows"`
	RowCount  int         `json:"row_count"`
	Truncated bool        `json:"truncated"`
	Turns     int         `json:"turns"`
	Tokens    agent.Usage `json:"tokens"`
	Seconds   float64     `json:"seconds"`
	Model     string      `json:"model"`
}

func printJSON(w io.Writer, ans *agent.Answer, model string) error {
	out := answerJSON{
		Question: ans.Question, Hint: ans.Hint, SQL: ans.SQL, Answer: ans.Text, Submitted: ans.Submitted,
		Columns: ans.Columns, Rows: ans.Rows, RowCount: ans.RowCount, Truncated: ans.Truncated,
		Turns: ans.Turns, Tokens: ans.Usage, Seconds: float64(int(ans.Seconds*1000)) / 1000, Model: model,
	}
	if out.Columns == nil {
		out.Columns = []string{}
	}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress shows what the agent is doing on stderr: with --verbose a line
// per model and tool call, and on a terminal a status line that rewrites
// itself and is gone when the answer prints.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	verbose bool
	live    bool      // stderr is a terminal
	text    string    // the status; "" for none
	since   time.Time // when the status was set
	shown   string    // the status line on the screen, "" for none
	done    chan struct{}
	once    sync.Once
}

func newProgress(w io.Writer, verbose bool) *progress {
	p := &progress{w: w, verbose: verbose, live: isTerminal(w), done: make(chan struct{})}
	if p.live {
		go func() {
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				case <-p.done:
					return
				}
			}
		}()
	}
	return p
}

// draw rewrites the status line when it changed; p.mu is held.
func (p *progress) draw() {
	if !p.live {
		return
	}
	s := ""
	if p.text != "" {
		s = fmt.Sprintf("%s … %ds", p.text, int(time.Since(p.since).Seconds()))
	}
	if s == p.shown {
		return
	}
	p.clearLocked()
	fmt.Fprint(p.w, s)
	p.shown = s
}

// status sets the status line; "" clears it.
func (p *progress) status(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.text, p.since = s, time.Now()
	p.draw()
}

// line prints a permanent line above the status line.
func (p *progress) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.w, s)
	p.draw()
}

func (p *progress) clearLocked() {
	if p.shown != "" {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = ""
	}
}

// writer is where the server's log goes: above the status line.
func (p *progress) writer() io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.clearLocked()
		n, err := p.w.Write(b)
		p.draw()
		return n, err
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// event is the agent's OnEvent.
func (p *progress) event(e agent.Event) {
	turn := fmt.Sprintf("turn %d · ", e.Turn)
	switch e.Kind {
	case "model":
		if p.verbose {
			s := turn + "model · " + duration(e.Duration)
			if e.Text != "" {
				s += " · " + oneLine(e.Text, 100)
			}
			p.line(s)
		}
		p.status(turn + "tools")
	case "tool":
		if p.verbose {
			s := turn + e.Tool + " " + describeArgs(e.Args) + " · " + duration(e.Duration)
			if e.IsError {
				s += " · error: " + oneLine(e.Text, 160)
			}
			p.line(s)
		}
		// The next model call starts when the turn's last tool is done.
		p.status(fmt.Sprintf("turn %d · model", e.Turn+1))
	case "retry":
		if p.verbose {
			p.line(turn + "asked again: " + oneLine(e.Text, 120))
		}
		p.status(fmt.Sprintf("turn %d · model", e.Turn+1))
	case "answer":
		if p.verbose {
			p.line(turn + "answer · " + oneLine(e.Text, 120))
		}
		p.status("")
	}
}

func (p *progress) close() {
	p.once.Do(func() {
		close(p.done)
		p.status("")
	})
}

// describeArgs shows a tool call's arguments briefly: the SQL of
// run_query and submit_answer on one line, others as JSON.
func describeArgs(raw json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(raw, &args) == nil {
		if sql, ok := args["sql"].(string); ok {
			return oneLine(sql, 160)
		}
	}
	return oneLine(string(raw), 160)
}

// describeSettings shows the server's settings as flags, with the password
// of a database URL hidden.
func describeSettings(settings []setting) string {
	var b strings.Builder
	for _, s := range settings {
		v := s.value
		if u, err := url.Parse(v); s.name == "db" && err == nil && u.User != nil {
			v = u.Redacted()
		}
		fmt.Fprintf(&b, " --%s=%s", s.name, v)
	}
	return b.String()
}

// oneLine collapses s to one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

func duration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
