// Command sqlmcp is an MCP server that lets a model explore and query a SQL
// database without being able to change it.
//
//	sqlmcp serve --db shop.db                       # serve a SQLite file over stdio
//	sqlmcp serve --demo                             # serve the bundled demo database
//	sqlmcp serve --db shop.db --http 127.0.0.1:8080 # serve MCP over streamable HTTP at /mcp
//	sqlmcp ask --db shop.db "who ordered most?"     # a model answers through the tools
//	sqlmcp eval --demo --system agent               # score a model on the demo's questions
//	sqlmcp learn --demo --notes notes               # learn lessons and examples from them
//	sqlmcp explore --demo --notes notes             # explore the database before any question
//	sqlmcp version
//
// Every flag can also come from an SQLMCP_* environment variable; flags
// win. This package is the only reader of flags, environment and signals.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
	"github.com/sqlmcp/sqlmcp/source/postgres"
	"github.com/sqlmcp/sqlmcp/tools"
)

// version is set at link time by release builds (-X main.version=v1.2.3);
// otherwise it comes from the module's build information.
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlmcp:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake in how sqlmcp was started: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

const usage = `sqlmcp: an MCP server that lets a model read a SQL database, never change it.

Usage:
  sqlmcp [serve] --db PATH|URL [flags]   serve a database over MCP on stdio
  sqlmcp [serve] --demo [flags]          serve the bundled demo database
  sqlmcp [serve] ... --http HOST:PORT    serve MCP over streamable HTTP at /mcp instead
  sqlmcp ask [--db ... | --demo | --server URL] [QUESTION]
                                         answer a question in plain words: a model writes and tests
                                         SQL through the tools (see sqlmcp ask --help)
  sqlmcp eval [--questions FILE --db-root DIR | --dsn-template URL | --demo]
             [--system oneshot|agent|experienced]
                                         score a model on questions by BIRD's rule; sqlmcp eval
                                         compare DIR_A DIR_B pairs two runs (see sqlmcp eval --help)
  sqlmcp learn [...] --notes DIR         the agent learns from training questions: lessons from its
                                         mistakes and solved examples (see sqlmcp learn --help)
  sqlmcp explore --db PATH|URL --notes DIR
                                         explore a database before any question: queries that ran
                                         and returned rows, kept as examples (see sqlmcp explore --help)
  sqlmcp healthcheck [URL]               GET URL (default http://127.0.0.1:8080/healthz) and exit 0 if it
                                         answers 200: a container HEALTHCHECK needing no curl
  sqlmcp version                         print the version
  sqlmcp help                            print this help

Flags of serve (each also read from the environment variable shown):
`

// run is the program: it reads args and env, and serves on stdin and
// stdout until ctx ends or the client hangs up, or with --http on HTTP until
// ctx ends. Logs go to stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		cfg, err := parseServe(args, stdout, getenv)
		if err != nil || cfg == nil {
			return err
		}
		return serve(ctx, cfg, stdin, stdout, stderr)
	case "ask":
		cfg, err := parseAsk(args, stdout, getenv)
		if err != nil || cfg == nil {
			return err
		}
		return ask(ctx, cfg, stdin, stdout, stderr)
	case "eval":
		if len(args) > 0 && args[0] == "compare" {
			return evalCompare(args[1:], stdout)
		}
		cfg, err := parseEval(args, stdout, getenv, false)
		if err != nil || cfg == nil {
			return err
		}
		return runEval(ctx, cfg, stdout, stderr)
	case "learn":
		cfg, err := parseEval(args, stdout, getenv, true)
		if err != nil || cfg == nil {
			return err
		}
		return runLearn(ctx, cfg, stdout, stderr)
	case "explore":
		cfg, err := parseExplore(args, stdout, getenv)
		if err != nil || cfg == nil {
			return err
		}
		return runExplore(ctx, cfg, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "sqlmcp %s %s %s/%s\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	case "healthcheck":
		return healthcheck(ctx, args, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		newFlags(&config{}, stdout).PrintDefaults()
		return nil
	}
	return usagef("unknown command %q: the commands are serve, ask, eval, learn, explore, healthcheck, version and help", cmd)
}

// healthcheck asks a running sqlmcp whether it is up, for images that
// have no curl: exit status 0 when URL answers 200 within two seconds.
// It reaches only the loopback health endpoint, so a self-signed
// certificate is accepted.
func healthcheck(ctx context.Context, args []string, stdout io.Writer) error {
	url := "http://127.0.0.1:8080/healthz"
	switch len(args) {
	case 0:
	case 1:
		url = args[0]
	default:
		return usagef("healthcheck takes at most one URL")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return usagef("healthcheck: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}

// config is what serve needs, from flags and environment.
type config struct {
	db           string
	demo         bool
	annotations  string
	descriptions string
	cacheDir     string
	schemas      string
	requireRO    bool
	allowExt     string // comma-separated
	allowFunc    string // comma-separated schema.name
	limits       sqlmcp.Limits
	logLevel     string

	// maxConcurrency is how many tool calls reach the database at once;
	// zero for no limit beyond the connection pool.
	maxConcurrency int

	// PostgreSQL's own budgets for every call, as PostgreSQL writes sizes.
	pgWorkMem, pgTempFileLimit string

	// HTTP; http == "" serves stdio and leaves the rest unused.
	http           string // host:port
	insecureNoAuth bool
	authTokenFile  string
	authTokens     string // comma-separated
	allowedOrigins string // comma-separated
	allowedHosts   string // comma-separated
	tlsCert        string
	tlsKey         string
	maxBodyBytes   int64
	shutdownGrace  time.Duration

	// Worked out by parseServe from the above.
	tokens    []token  // the accepted bearer tokens, as digests
	origins   []string // --allowed-origins, normalized
	hosts     []string // --allowed-hosts, lowercased
	httpNotes []string // HTTP settings given without --http, to warn about
}

// newFlags defines serve's flags on cfg, with their defaults.
func newFlags(cfg *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.db, "db", "", "database: a SQLite file path, a sqlite: or file: URL, or a postgres:// URL (SQLMCP_DB)")
	fs.BoolVar(&cfg.demo, "demo", false, "serve the bundled demo database, built on first use into the cache directory (SQLMCP_DEMO)")
	fs.StringVar(&cfg.annotations, "annotations", "", "YAML or JSON file of table and column descriptions (SQLMCP_ANNOTATIONS)")
	fs.StringVar(&cfg.descriptions, "descriptions", "", "a folder of BIRD-style <table>.csv column descriptions (SQLMCP_DESCRIPTIONS; default: database_description beside a SQLite file)")
	fs.StringVar(&cfg.schemas, "schema", "", "PostgreSQL: the schemas to show, comma-separated (SQLMCP_SCHEMA; default: all but the system ones)")
	fs.BoolVar(&cfg.requireRO, "require-readonly-role", false, "PostgreSQL: refuse to start when the role could write anything (SQLMCP_REQUIRE_READONLY_ROLE)")
	fs.StringVar(&cfg.allowExt, "allow-extension", "", "PostgreSQL: extensions, comma-separated, whose non-volatile functions queries may call beyond the vetted ones; never those that run SQL text (SQLMCP_ALLOW_EXTENSION)")
	fs.StringVar(&cfg.allowFunc, "allow-function", "", "PostgreSQL: functions defined in the database, as schema.name, comma-separated, that queries may call; never those that run SQL text (SQLMCP_ALLOW_FUNCTION)")
	fs.StringVar(&cfg.cacheDir, "cache-dir", "", "where the demo database is built (SQLMCP_CACHE_DIR; default: the user cache directory)")
	fs.DurationVar(&cfg.limits.Timeout, "timeout", 15*time.Second, "stop any query after this long, inside the engine (SQLMCP_TIMEOUT)")
	fs.IntVar(&cfg.limits.MaxRows, "max-rows", 100, "rows a query returns unless the caller asks for fewer or more (SQLMCP_MAX_ROWS)")
	fs.IntVar(&cfg.limits.MaxRowsLimit, "max-rows-limit", 1000, "the most rows a caller may ask for (SQLMCP_MAX_ROWS_LIMIT)")
	fs.IntVar(&cfg.limits.MaxBytes, "max-bytes", 256<<10, "the most bytes of rows a result holds, as JSON (SQLMCP_MAX_BYTES)")
	fs.IntVar(&cfg.limits.MaxCellBytes, "max-cell-bytes", 2<<10, "text values longer than this are cut, with a marker (SQLMCP_MAX_CELL_BYTES)")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "debug, info, warn or error; logs go to stderr as JSON (SQLMCP_LOG_LEVEL)")
	fs.IntVar(&cfg.maxConcurrency, "max-concurrency", 8, "tool calls that reach the database at once; the rest wait up to --timeout, then are told the server is busy; 0 for no limit (SQLMCP_MAX_CONCURRENCY)")
	fs.StringVar(&cfg.pgWorkMem, "pg-work-mem", postgres.DefaultWorkMem, "PostgreSQL: work_mem for every call, the memory each sort or hash may take before it spills to disk (SQLMCP_PG_WORK_MEM)")
	fs.StringVar(&cfg.pgTempFileLimit, "pg-temp-file-limit", postgres.DefaultTempFileLimit, "PostgreSQL: temp_file_limit for every call, the temporary disk each process may write, when the role may set it (else a warning says how); -1 for none (SQLMCP_PG_TEMP_FILE_LIMIT)")
	fs.StringVar(&cfg.http, "http", "", "serve MCP over streamable HTTP at /mcp on this host:port, usually 127.0.0.1:8080, instead of stdio (SQLMCP_HTTP)")
	fs.StringVar(&cfg.authTokenFile, "auth-token-file", "", "HTTP: a file of bearer tokens clients must send, one per line; blank lines and # comments are skipped (SQLMCP_AUTH_TOKEN_FILE)")
	fs.StringVar(&cfg.authTokens, "auth-tokens", "", "HTTP: bearer tokens, comma-separated; prefer the environment variable or --auth-token-file, since a flag's value shows in ps (SQLMCP_AUTH_TOKENS)")
	fs.BoolVar(&cfg.insecureNoAuth, "insecure-no-auth", false, "HTTP: serve a non-loopback address without tokens, because something in front authenticates (SQLMCP_INSECURE_NO_AUTH)")
	fs.StringVar(&cfg.allowedOrigins, "allowed-origins", "", "HTTP: browser origins allowed besides this server's own, comma-separated, e.g. https://app.example.com (SQLMCP_ALLOWED_ORIGINS)")
	fs.StringVar(&cfg.allowedHosts, "allowed-hosts", "", "HTTP: Host header names allowed besides loopback and the bind address, comma-separated, name or name:port; * allows any (SQLMCP_ALLOWED_HOSTS)")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "HTTP: serve HTTPS with this PEM certificate chain; needs --tls-key (SQLMCP_TLS_CERT)")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "HTTP: the PEM private key of --tls-cert (SQLMCP_TLS_KEY)")
	fs.Int64Var(&cfg.maxBodyBytes, "max-body-bytes", 1<<20, "HTTP: the largest request body; larger gets 413 (SQLMCP_MAX_BODY_BYTES)")
	fs.DurationVar(&cfg.shutdownGrace, "shutdown-grace", 10*time.Second, "HTTP: on SIGTERM or SIGINT, how long calls in flight may finish before they are cancelled (SQLMCP_SHUTDOWN_GRACE)")
	return fs
}

// parseArgs parses args into fs, which takes no positional arguments, and
// then fills the flags args left unset from the environment. It reports
// false with a nil error when --help was asked for: help and the flags went
// to stdout. see names where to read more, for error messages.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer, help, see string, getenv func(string) string) (bool, error) {
	if err := fs.Parse(args); err != nil {
		return false, parseError(fs, err, stdout, help, see)
	}
	if fs.NArg() > 0 {
		return false, usagef("unexpected argument %q (see %s)", fs.Arg(0), see)
	}
	if err := fillFromEnv(fs, getenv); err != nil {
		return false, err
	}
	return true, nil
}

// parseError answers an error from fs.Parse: for --help it prints help and
// the flags to stdout and returns nil; otherwise it is a usage error.
func parseError(fs *flag.FlagSet, err error, stdout io.Writer, help, see string) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, help)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil
	}
	return usagef("%v (see %s)", err, see)
}

// fillFromEnv sets each flag of fs that the command line did not give from
// its SQLMCP_* variable, if set: a flag wins over the environment. Call it
// after fs.Parse.
func fillFromEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v := getenv(envName(f.Name)); v != "" && !given[f.Name] && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = usagef("%s=%q is not a valid --%s value (%v)", envName(f.Name), v, f.Name, err)
			}
		}
	})
	return envErr
}

// envName is the environment variable of a flag: --max-rows is SQLMCP_MAX_ROWS.
func envName(flagName string) string {
	return "SQLMCP_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseServe reads serve's environment, then its flags, and checks them.
// It returns a nil config and no error when -help was asked for.
func parseServe(args []string, stdout io.Writer, getenv func(string) string) (*config, error) {
	cfg := &config{}
	fs := newFlags(cfg, io.Discard)
	if ok, err := parseArgs(fs, args, stdout, usage, "sqlmcp help", getenv); !ok {
		return nil, err
	}
	l := cfg.limits
	switch {
	case cfg.db != "" && cfg.demo:
		return nil, usagef("give --db or --demo, not both")
	case cfg.db == "" && !cfg.demo:
		return nil, usagef("no database: pass --db PATH (or set SQLMCP_DB), or --demo for the bundled demo")
	case l.Timeout <= 0:
		return nil, usagef("--timeout must be positive, not %s", l.Timeout)
	case l.MaxRows <= 0 || l.MaxRowsLimit <= 0 || l.MaxBytes <= 0 || l.MaxCellBytes <= 0:
		return nil, usagef("--max-rows, --max-rows-limit, --max-bytes and --max-cell-bytes must be positive")
	case l.MaxRows > l.MaxRowsLimit:
		return nil, usagef("--max-rows %d is more than --max-rows-limit %d", l.MaxRows, l.MaxRowsLimit)
	}
	if _, err := zerolog.ParseLevel(cfg.logLevel); err != nil || cfg.logLevel == "" {
		return nil, usagef("--log-level %q: use debug, info, warn or error", cfg.logLevel)
	}
	if cfg.maxConcurrency < 0 {
		return nil, usagef("--max-concurrency must be 0 (no limit) or more, not %d", cfg.maxConcurrency)
	}
	if err := parseHTTP(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// serve opens the database and serves MCP on stdin and stdout, or on HTTP
// with --http.
func serve(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) error {
	level, _ := zerolog.ParseLevel(cfg.logLevel)
	log := zerolog.New(stderr).Level(level).With().Timestamp().Logger()

	dsn, annotations := cfg.db, cfg.annotations
	if cfg.demo {
		dir, err := demoCacheDir(cfg.cacheDir)
		if err != nil {
			return err
		}
		path, err := demo.Open(dir)
		if err != nil {
			return fmt.Errorf("building the demo database: %w", err)
		}
		dsn = path
		if annotations == "" {
			annotations = filepath.Join(filepath.Dir(path), "annotations.json")
		}
	}
	// Room for every allowed call plus the catalog and /readyz.
	db, err := source.Open(ctx, dsn, &source.Options{Limits: cfg.limits, MaxConns: max(8, cfg.maxConcurrency+2),
		AllowExtensions: splitList(cfg.allowExt), AllowFunctions: splitList(cfg.allowFunc),
		Engines: builtin.Engines(&postgres.Engine{WorkMem: cfg.pgWorkMem, TempFileLimit: cfg.pgTempFileLimit})})
	if err != nil {
		return usageError{err}
	}
	defer db.Close()
	schemas := splitList(cfg.schemas)
	if len(schemas) > 0 && db.Dialect() != sqlmcp.Postgres {
		return usagef("--schema is for PostgreSQL; a SQLite database has one schema")
	}
	cat, err := schema.New(db, &schema.Options{Annotations: annotations, Descriptions: cfg.descriptions, Schemas: schemas})
	if err != nil {
		return usageError{err}
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.limits.WithDefaults().Timeout)
	err = cat.Check(cctx)
	cancel()
	if err != nil {
		return usageError{err}
	}
	if err := checkRole(ctx, db, cfg.requireRO, log); err != nil {
		return err
	}
	for _, w := range db.Warnings() {
		log.Warn().Str("event", w.Event).Msg(w.Message)
	}
	limits := db.Limits()
	layers := db.Guard()
	start := func() *zerolog.Event {
		return log.Info().Str("event", "start").Str("version", buildVersion()).
			Str("engine", string(db.Dialect())).Str("database", db.Name()).Bool("demo", cfg.demo).
			Str("annotations", annotations).Strs("schemas", schemas).
			Strs("guard", layers).
			Dur("timeout", limits.Timeout).Int("max_rows", limits.MaxRows).Int("max_rows_limit", limits.MaxRowsLimit).
			Int("max_bytes", limits.MaxBytes).Int("max_cell_bytes", limits.MaxCellBytes).
			Int("max_concurrency", cfg.maxConcurrency)
	}

	srv := tools.NewServer(db, cat, &tools.Options{Logger: log, Version: buildVersion(), MaxConcurrency: cfg.maxConcurrency})
	if cfg.http != "" {
		return serveHTTP(ctx, cfg, db, srv, log, start)
	}
	if len(cfg.httpNotes) > 0 {
		log.Warn().Str("event", "ignored").Strs("settings", cfg.httpNotes).Msg("these settings are for --http and do nothing on stdio")
	}
	start().Str("transport", "stdio").Send()
	// A client that hangs up at once still gets every reply: a call may
	// wait --timeout for its turn, then run for --timeout.
	rw := newStdio(ctx, stdin, stdout, 2*limits.Timeout+5*time.Second)
	t := &mcp.IOTransport{Reader: rw, Writer: rw}
	err = srv.Run(ctx, t)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return err
	}
	log.Info().Str("event", "stop").Send()
	return nil
}

// checkRole warns, loudly, when a server's role could write, and with
// --require-readonly-role refuses to start.
func checkRole(ctx context.Context, db *source.DB, require bool, log zerolog.Logger) error {
	if db.Dialect() == sqlmcp.SQLite {
		return nil
	}
	found, err := db.WriteAccess(ctx)
	if err != nil {
		return fmt.Errorf("checking what the role may write: %w", err)
	}
	if len(found) == 0 {
		log.Info().Str("event", "role").Str("role", "read-only").Send()
		return nil
	}
	fix := db.ReadOnlyRoleSQL("sqlmcp_ro")
	if require {
		return usagef("--require-readonly-role: the role could write (%s); connect as a read-only role, e.g. one made by:\n%s",
			strings.Join(found, "; "), fix)
	}
	log.Warn().Str("event", "role").Strs("could_write", found).Str("create_read_only_role", fix).
		Msg("this role could write: sqlmcp's guard and read-only transactions still stop every write, but connect as a read-only role so a third wall holds")
	return nil
}

// buildVersion is the release version, or the module version the binary
// was built from, or "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
