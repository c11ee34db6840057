package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/demo"
)

// This file holds what every command shares: how flags are parsed, filled
// from the environment and printed, the usage error, and the typed flag
// groups (the database, the model) the commands define alike.

// usageError is a mistake in how sqlmcp was started: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

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
// the flags to stdout and returns nil; otherwise it is a usage error, with
// the fix when a duration lacks its unit.
func parseError(fs *flag.FlagSet, err error, stdout io.Writer, help, see string) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, help)
		printFlags(stdout, fs)
		return nil
	}
	// "invalid value "5" for flag -timeout: parse error"
	var name, value string
	if _, serr := fmt.Sscanf(err.Error(), "invalid value %q for flag -%s", &value, &name); serr == nil {
		if hint := durationHint(fs, strings.TrimSuffix(name, ":"), value); hint != "" {
			return usagef("--%s %s: %s (see %s)", strings.TrimSuffix(name, ":"), value, hint, see)
		}
	}
	return usagef("%v (see %s)", err, see)
}

// durationHint says how to write a duration when flag name of fs takes one
// and value is not one; "" otherwise.
func durationHint(fs *flag.FlagSet, name, value string) string {
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	if g, ok := f.Value.(flag.Getter); !ok {
		return ""
	} else if _, isDuration := g.Get().(time.Duration); !isDuration {
		return ""
	}
	if _, err := time.ParseDuration(value); err == nil {
		return ""
	}
	return fmt.Sprintf("a duration needs a unit, as %ss, 500ms or 2m", strings.TrimSpace(value))
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
				hint := durationHint(fs, f.Name, v)
				if hint == "" {
					hint = err.Error()
				}
				envErr = usagef("%s=%q is not a valid --%s value (%s)", envName(f.Name), v, f.Name, hint)
			}
		}
	})
	return envErr
}

// envName is the environment variable of a flag: --max-rows is SQLMCP_MAX_ROWS.
func envName(flagName string) string {
	return "SQLMCP_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// printFlags lists fs's flags as the README writes them, --name, each
// with its usage and default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "false" && d != "0" {
			fmt.Fprintf(w, " (default %s)", d)
		}
		fmt.Fprintln(w)
	})
}

// dbFlags choose the database a command works on: --db or --demo, and
// where the demo is built.
type dbFlags struct {
	db       string // the first --db
	dbs      dbList // every --db: serve takes several, as NAME=URL
	demo     bool
	cacheDir string
}

func (f *dbFlags) define(fs *flag.FlagSet, what string) {
	fs.Var(&dbValue{f}, "db", what+": a SQLite file `PATH`, a sqlite: or file: URL, a postgres:// URL, or a DuckDB file or a file or folder of CSV, Parquet or JSON; serve takes several as --db NAME=URL each (SQLMCP_DB, a line each)")
	fs.BoolVar(&f.demo, "demo", false, "the bundled demo database, built on first use into the cache directory (SQLMCP_DEMO)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where the demo database is built (SQLMCP_CACHE_DIR; default: the user cache directory)")
}

// check says what is wrong with the choice; orElse is the rest of the
// "no database" message, after "pass --db PATH".
func (f *dbFlags) check(orElse string) error {
	switch {
	case len(f.dbs) > 1:
		return usagef("--db is given %d times: this command takes one database (sqlmcp serve takes several)", len(f.dbs))
	case f.db != "" && f.demo:
		return usagef("give --db or --demo, not both")
	case f.db == "" && !f.demo:
		return usagef("no database: pass --db PATH%s", orElse)
	}
	return nil
}

// demoDir is where the demo is built: --cache-dir, or the user cache
// directory.
func (f *dbFlags) demoDir() (string, error) {
	if f.cacheDir != "" {
		return f.cacheDir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", usagef("finding a cache directory for the demo: %v (set --cache-dir)", err)
	}
	return filepath.Join(base, "sqlmcp"), nil
}

// demoPath builds the demo database under demoDir, if it is not built
// yet, and returns its path.
func (f *dbFlags) demoPath() (string, error) {
	dir, err := f.demoDir()
	if err != nil {
		return "", err
	}
	path, err := demo.Open(dir)
	if err != nil {
		return "", fmt.Errorf("building the demo database: %w", err)
	}
	return path, nil
}

// modelFlags choose the model, the same way for every command that asks
// one: the provider, model and endpoint, how long a call may take, and
// the reply cache.
type modelFlags struct {
	cfg   agent.ModelConfig
	cache string
}

// define adds the flags; ask's (full) say how the choice is made, the
// others point there.
func (f *modelFlags) define(fs *flag.FlagSet, full bool) {
	provider, model, baseURL := "anthropic or openai, as for ask (SQLMCP_PROVIDER)", "the model, as for ask (SQLMCP_MODEL)",
		"an OpenAI-compatible API's root, as for ask (SQLMCP_BASE_URL, or OPENAI_BASE_URL)"
	if full {
		provider = "anthropic or openai (SQLMCP_PROVIDER; default: openai with --base-url, anthropic when ANTHROPIC_API_KEY is set, openai with OPENAI_API_KEY or OPENAI_BASE_URL)"
		model = fmt.Sprintf("the model (SQLMCP_MODEL; default %s for anthropic, OPENAI_MODEL or %s for openai; needed with --base-url)",
			agent.DefaultAnthropicModel, agent.DefaultOpenAIModel)
		baseURL = "an OpenAI-compatible API's root, as http://localhost:11434/v1 for ollama; with --provider anthropic, the Messages API's root (SQLMCP_BASE_URL; default OPENAI_BASE_URL or ANTHROPIC_BASE_URL)"
	}
	fs.StringVar(&f.cfg.Provider, "provider", "", provider)
	fs.StringVar(&f.cfg.Model, "model", "", model)
	fs.StringVar(&f.cfg.BaseURL, "base-url", "", baseURL)
	fs.DurationVar(&f.cfg.Timeout, "model-timeout", agent.DefaultTimeout, "how long one model call may take before it is given up, as 90s or 5m (SQLMCP_MODEL_TIMEOUT)")
	fs.StringVar(&f.cache, "cache", "", "keep model replies in this directory, so asking again makes no model calls (SQLMCP_CACHE)")
}

// open chooses the model from the flags and the provider's variables,
// behind the reply cache with --cache.
func (f *modelFlags) open(getenv func(string) string) (agent.Model, error) {
	if f.cfg.Timeout <= 0 {
		return nil, usagef("--model-timeout must be positive, not %s", f.cfg.Timeout)
	}
	m, err := agent.ChooseModel(f.cfg, getenv)
	if err != nil {
		return nil, usageError{err}
	}
	if f.cache != "" {
		m = agent.NewCache(f.cache, m)
	}
	return m, nil
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
