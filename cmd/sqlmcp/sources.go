package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/policy"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/sources"
)

// dbList is every --db: once (a path or URL, as always) or several times
// (NAME=URL each).
type dbList []string

// dbValue is --db as a flag: each value (a line each, as SQLMCP_DB may
// hold several) is added to dbs, and the first is db.
type dbValue struct{ f *dbFlags }

// String joins the values a line each.
func (v *dbValue) String() string {
	if v.f == nil {
		return ""
	}
	return strings.Join(v.f.dbs, "\n")
}

func (v *dbValue) Set(s string) error {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			v.f.dbs = append(v.f.dbs, line)
		}
	}
	if len(v.f.dbs) > 0 {
		v.f.db = v.f.dbs[0]
	}
	return nil
}

// withDatabase makes every tool call a client sends name database, for a
// client of a server of several databases that asks about one.
func withDatabase(database string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, ok := req.GetParams().(*mcp.CallToolParams)
			if method == "initialize" {
				return dialectOf(database)(next(ctx, method, req))
			}
			if !ok || method != "tools/call" {
				return next(ctx, method, req)
			}
			args := map[string]any{}
			if p.Arguments != nil {
				raw, err := json.Marshal(p.Arguments)
				if err != nil {
					return nil, fmt.Errorf("encoding the arguments of %s: %w", p.Name, err)
				}
				if err := json.Unmarshal(raw, &args); err != nil {
					return nil, fmt.Errorf("the arguments of %s are not an object: %w", p.Name, err)
				}
			}
			args["database"] = database
			p.Arguments = args // the caller's own params, made for this call
			return next(ctx, method, req)
		}
	}
}

// dialectOf returns what makes an initialize result say database's
// dialect, from the server's list of each database's, so that a client
// asking about one database of several writes that one's SQL.
func dialectOf(database string) func(mcp.Result, error) (mcp.Result, error) {
	return func(res mcp.Result, err error) (mcp.Result, error) {
		ir, ok := res.(*mcp.InitializeResult)
		if err != nil || !ok || ir.Capabilities == nil {
			return res, err
		}
		ours, _ := ir.Capabilities.Experimental["sqlmcp"].(map[string]any)
		if dbs, _ := ours["databases"].(map[string]any); dbs[database] != nil {
			ours["dialect"] = dbs[database]
		}
		return res, err
	}
}

// engines are the engines a source may be opened with: this build's
// optional ones first (DuckDB claims folders and data files by name),
// then the built-in ones, PostgreSQL with the source's budgets; SQLite
// takes every path left.
func engines(s *conf.Source) []source.Engine {
	return append(optionalEngines(s), sources.Engines(s)...)
}

// perDatabaseFlags are serve's flags that speak of one database: with a
// configuration file, or several --db, they are written per source.
var perDatabaseFlags = []string{"annotations", "descriptions", "schema", "allow-extension", "allow-function", "policy", "demo"}

// demoSource builds the demo database, if it is not built yet, and
// returns it as the one source, with its annotations unless cfg gives
// others.
func demoSource(cfg *config) (*conf.File, error) {
	path, err := cfg.demoPath()
	if err != nil {
		return nil, err
	}
	// Building the demo on first use takes heap an idle server never
	// needs again: hand it back now, not minutes from now.
	debug.FreeOSMemory()
	annotations := cfg.annotations
	if annotations == "" {
		annotations = filepath.Join(filepath.Dir(path), "annotations.json")
	}
	pol, err := cfg.policy()
	if err != nil {
		return nil, err
	}
	s := &conf.Source{Name: "demo", URL: path, Display: path, Description: demoDescription,
		Settings: conf.Settings{Limits: cfg.limits, MaxConcurrency: cfg.maxConcurrency, Annotations: annotations, Descriptions: cfg.descriptions, Policy: pol}}
	return &conf.File{Sources: []*conf.Source{s}}, nil
}

// policy reads --policy, keyed with SQLMCP_MASK_KEY; nil without one.
func (cfg *config) policy() (*policy.Spec, error) {
	if cfg.policyFile == "" {
		return nil, nil
	}
	s, err := policy.Load(cfg.policyFile)
	if err != nil {
		return nil, usageError{err}
	}
	return s, nil
}

// keyPolicies gives every source's policy the operator's mask key, so
// masked values hash alike across restarts and replicas; without one,
// each process makes its own.
func keyPolicies(f *conf.File, key string) {
	for _, s := range f.Sources {
		if s.Policy != nil && key != "" {
			s.Policy.Key = []byte(key)
		}
	}
}

const demoDescription = "The bundled demo: a school district's schools, students, teachers, courses, test scores and meal program."

// loadSources makes the sources cfg describes: those of --config (or
// SQLMCP_CONFIG), whose server-wide settings fill the flags of fs that the
// command line and environment left unset; or the --db flags; or --demo.
// Call it after fs is parsed and filled from the environment, and before
// its values are checked.
func loadSources(cfg *config, fs *flag.FlagSet, getenv func(string) string) (*conf.File, error) {
	cfg.maskKey = getenv("SQLMCP_MASK_KEY")
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	base := conf.Settings{Limits: cfg.limits, MaxConcurrency: cfg.maxConcurrency, RequireReadonlyRole: cfg.requireRO,
		PGWorkMem: cfg.pgWorkMem, PGTempFileLimit: cfg.pgTempFileLimit,
		DuckDBMemoryLimit: cfg.duckdbMemoryLimit, DuckDBThreads: cfg.duckdbThreads}
	several := cfg.configFile != "" || len(cfg.dbs) > 1
	if several {
		for _, name := range append([]string{"db"}, perDatabaseFlags...) {
			if given[name] && (name != "db" || cfg.configFile != "") {
				what := "with --config"
				if cfg.configFile == "" {
					what = "with several --db"
				}
				return nil, usagef("--%s %s: write it per database in the configuration file", name, what)
			}
		}
	}
	switch {
	case cfg.configFile != "":
		f, err := conf.Load(cfg.configFile, base, getenv)
		if err != nil {
			return nil, usageError{err}
		}
		for _, g := range f.Global {
			if given[g.Flag] {
				continue // the command line and environment win
			}
			if err := fs.Set(g.Flag, g.Value); err != nil {
				return nil, usagef("%s:%d: %s: %q is not a valid value (%v)", f.Path, g.Line, g.Key, g.Value, err)
			}
		}
		return f, nil
	case cfg.demo && len(cfg.dbs) > 0:
		return nil, usagef("give --db or --demo, not both")
	case cfg.demo:
		return nil, nil // built when served: see demoSource
	case len(cfg.dbs) == 0:
		return nil, usagef("no database: pass --db PATH (or set SQLMCP_DB), --config FILE (or SQLMCP_CONFIG), or --demo for the bundled demo")
	}
	if !several {
		var err error
		if base.Policy, err = cfg.policy(); err != nil {
			return nil, err
		}
		base.Annotations, base.Descriptions = cfg.annotations, cfg.descriptions
		base.Schemas, base.AllowExtensions, base.AllowFunctions = splitList(cfg.schemas), splitList(cfg.allowExt), splitList(cfg.allowFunc)
	}
	f, err := conf.FromURLs(cfg.dbs, base)
	if err != nil {
		return nil, usageError{err}
	}
	return f, nil
}

// startSources opens cfg's databases at once, logging what was checked
// and found for each (and for each later try), and returns them as a set
// to serve. A database that is down does not stop the others: it is tried
// again by later calls. One that answers with a problem it does not
// tolerate stops the server, as does the only database being down.
func startSources(ctx context.Context, cfg *config, log zerolog.Logger) (*sources.Set, error) {
	f := cfg.sources
	if f == nil {
		var err error
		if f, err = demoSource(cfg); err != nil {
			return nil, err
		}
	}
	keyPolicies(f, cfg.maskKey)
	started := false
	var mu sync.Mutex
	set := sources.New(f, &sources.Options{Engines: engines, Opened: func(r *sources.Report) {
		mu.Lock()
		defer mu.Unlock()
		if started || len(f.Sources) > 1 {
			logReport(log, r)
		}
	}})
	reports := set.Start(ctx)
	mu.Lock()
	started = true
	mu.Unlock()
	var fatal []string
	for _, r := range reports {
		if err := r.Err(); err != nil && (r.Unavailable == "" || len(reports) == 1) {
			fatal = append(fatal, err.Error())
		}
	}
	if len(fatal) > 0 {
		set.Close()
		return nil, usageError{errors.New(strings.Join(fatal, "\n"))}
	}
	if len(reports) == 1 {
		for _, p := range reports[0].Warnings() {
			log.Warn().Str("event", p.Kind).Str("database", reports[0].Name).Msg(p.Msg)
		}
	}
	return set, nil
}

// logReport logs one try to open a source: what was checked and found,
// each warning, or why it cannot be served.
func logReport(log zerolog.Logger, r *sources.Report) {
	if r.Unavailable != "" {
		log.Error().Str("event", "source").Str("database", r.Name).Str("unavailable", r.Unavailable).
			Msg("this database cannot be reached; its calls say so, and it is tried again on the next")
		return
	}
	if err := r.Err(); err != nil {
		log.Error().Str("event", "source").Str("database", r.Name).Str("error", err.Error()).
			Msg("this database is not served until its problems are fixed")
		return
	}
	l := r.Limits
	e := log.Info().Str("event", "source").Str("database", r.Name).Str("engine", string(r.Engine)).
		Str("url", r.Database).Strs("guard", r.Guard).Int("tables", r.Tables).Strs("schemas", r.Schemas).
		Dur("timeout", l.Timeout).Int("max_rows", l.MaxRows).Int("max_rows_limit", l.MaxRowsLimit).
		Int("max_bytes", l.MaxBytes).Int("max_cell_bytes", l.MaxCellBytes)
	if r.Role != "" {
		e = e.Str("role", r.Role)
	}
	e.Send()
	for _, p := range r.Warnings() {
		log.Warn().Str("event", p.Kind).Str("database", r.Name).Msg(p.Msg)
	}
}
