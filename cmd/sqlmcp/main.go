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
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"
)

// version is set at link time by release builds (-X main.version=v1.2.3);
// otherwise it comes from the module's build information.
var version = ""

// ownProcess is true when run is the program's, not a test's: serve may
// then change what is the whole process's (servingProcs).
var ownProcess bool

func main() {
	serveDuckDBWorker()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ownProcess = true
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

const usage = `sqlmcp: an MCP server that lets a model read a SQL database, never change it.

Usage:
  sqlmcp [serve] --db PATH|URL [flags]   serve a database over MCP on stdio
  sqlmcp [serve] --demo [flags]          serve the bundled demo database
  sqlmcp [serve] ... --http HOST:PORT    serve MCP over streamable HTTP at /mcp instead
  sqlmcp [serve] --config FILE           serve the databases a configuration file names (sqlmcp.yaml)
  sqlmcp check --config FILE | --db URL  open and check each database, print the effective settings,
                                         the guard layers and every problem; exit 1 if there is one
  sqlmcp ask [--db ... | --demo | --server URL] [QUESTION]
                                         answer a question in plain words: a model writes and tests
                                         SQL through the tools (see sqlmcp ask --help)
  sqlmcp eval [--questions FILE --db-root DIR | --dsn-template URL | --demo] [--db PATH|URL]
             [--system oneshot|agent|experienced]
                                         score a model on questions by BIRD's rule; sqlmcp eval
                                         compare DIR_A DIR_B pairs two runs (see sqlmcp eval --help)
  sqlmcp learn [...] --notes DIR         the agent learns from training questions: lessons from its
                                         mistakes and solved examples (see sqlmcp learn --help)
  sqlmcp explore --db PATH|URL --notes DIR
                                         explore a database before any question: queries that ran
                                         and returned rows, kept as examples (see sqlmcp explore --help)
  sqlmcp audit verify FILE [FILE.1 ...]  check an audit file's hash chain (--audit-file) and its rotated
                                         files; name each line edited, removed or inserted; exit 1 if any
  sqlmcp demo --parquet DIR              write the demo as a folder of Parquet files, to serve with DuckDB
  sqlmcp demo --mysql FILE               write the demo as a MySQL script, to load into MySQL or MariaDB
  sqlmcp healthcheck [URL]               GET URL (default http://127.0.0.1:8080/healthz) and exit 0 if it
                                         answers 200: a container HEALTHCHECK needing no curl
  sqlmcp version                         print the version (also --version)
  sqlmcp help                            print this help

Flags of serve (each also read from the environment variable shown):
`

// run is the program: it reads args and env, and serves on stdin and
// stdout until ctx ends or the client hangs up, or with --http on HTTP until
// ctx ends. Logs go to stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 && getenv("SQLMCP_DB") == "" && getenv("SQLMCP_DEMO") == "" {
		// Nothing to serve: say what sqlmcp does, on stderr, since stdout
		// is an MCP client's.
		printHelp(stderr)
		return usagef("no database: pass --db PATH (or set SQLMCP_DB), or --demo for the bundled demo; the usage is above")
	}
	cmd := "serve"
	if len(args) > 0 && (!strings.HasPrefix(args[0], "-") || slices.Contains(topFlags, args[0])) {
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
		cfg, err := parseEval(args, stdout, getenv)
		if err != nil || cfg == nil {
			return err
		}
		return runEval(ctx, cfg, stdout, stderr)
	case "learn":
		cfg, err := parseLearn(args, stdout, getenv)
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
	case "check":
		return check(ctx, args, stdout, getenv)
	case "demo":
		return demoCommand(ctx, args, stdout, getenv)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "sqlmcp %s %s %s/%s\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	case "audit":
		return auditCommand(args, stdout)
	case "healthcheck":
		return healthcheck(ctx, args, stdout)
	case "help", "-h", "-help", "--help":
		printHelp(stdout)
		return nil
	}
	return usagef("unknown command %q: the commands are serve, check, ask, eval, learn, explore, audit, demo, healthcheck, version and help", cmd)
}

// topFlags are the flags that stand for a command: --version and --help.
var topFlags = []string{"-version", "--version", "-h", "-help", "--help"}

// printHelp prints the usage and serve's flags.
func printHelp(w io.Writer) {
	fmt.Fprint(w, usage)
	printFlags(w, newFlags(&config{}, io.Discard))
}

const healthcheckUsage = `Usage: sqlmcp healthcheck [URL]

Ask a running sqlmcp serve --http whether it is up: GET URL (default
http://127.0.0.1:8080/healthz) and exit with status 0 when it answers 200
within two seconds, 1 otherwise. For container HEALTHCHECKs with no curl.
`

// healthcheck asks a running sqlmcp whether it is up, for images that
// have no curl: exit status 0 when URL answers 200 within two seconds.
// It reaches only the loopback health endpoint, so a self-signed
// certificate is accepted.
func healthcheck(ctx context.Context, args []string, stdout io.Writer) error {
	url := "http://127.0.0.1:8080/healthz"
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		fmt.Fprint(stdout, healthcheckUsage)
		return nil
	case len(args) == 1 && strings.HasPrefix(args[0], "-"):
		return usagef("healthcheck takes a URL, not %s (see sqlmcp healthcheck --help)", args[0])
	case len(args) == 1:
		url = args[0]
	case len(args) > 1:
		return usagef("healthcheck takes at most one URL")
	}
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return usagef("healthcheck: %q is not an http:// or https:// URL, e.g. http://127.0.0.1:8080/healthz", url)
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
