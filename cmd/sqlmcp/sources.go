package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/demo"
)

// dbList is --db, which may be given once (a path or URL, as always) or
// several times (NAME=URL each).
type dbList []string

func (l *dbList) String() string     { return strings.Join(*l, ",") }
func (l *dbList) Set(v string) error { *l = append(*l, v); return nil }

// perDatabaseFlags are serve's flags that speak of one database: with a
// configuration file, or several --db, they are written per source.
var perDatabaseFlags = []string{"annotations", "descriptions", "schema", "allow-extension", "allow-function", "demo"}

// demoSource builds the demo database, if it is not built yet, and
// returns it as the one source, with its annotations unless cfg gives
// others.
func demoSource(cfg *config) (*conf.File, error) {
	dir, err := demoCacheDir(cfg.cacheDir)
	if err != nil {
		return nil, err
	}
	path, err := demo.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("building the demo database: %w", err)
	}
	annotations := cfg.annotations
	if annotations == "" {
		annotations = filepath.Join(filepath.Dir(path), "annotations.json")
	}
	s := &conf.Source{Name: "demo", URL: path, Display: path, Description: demoDescription,
		Settings: conf.Settings{Limits: cfg.limits, MaxConcurrency: cfg.maxConcurrency, Annotations: annotations, Descriptions: cfg.descriptions}}
	return &conf.File{Sources: []*conf.Source{s}}, nil
}

const demoDescription = "The bundled demo: a school district's schools, students, teachers, courses, test scores and meal program."

// loadSources makes the sources cfg describes: those of --config (or
// SQLMCP_CONFIG), whose server-wide settings fill the flags of fs that the
// command line and environment left unset; or the --db flags; or --demo.
// Call it after fs is parsed and filled from the environment, and before
// its values are checked.
func loadSources(cfg *config, fs *flag.FlagSet, getenv func(string) string) (*conf.File, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	base := conf.Settings{Limits: cfg.limits, MaxConcurrency: cfg.maxConcurrency, RequireReadonlyRole: cfg.requireRO,
		PGWorkMem: cfg.pgWorkMem, PGTempFileLimit: cfg.pgTempFileLimit}
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
		base.Annotations, base.Descriptions = cfg.annotations, cfg.descriptions
		base.Schemas, base.AllowExtensions, base.AllowFunctions = splitList(cfg.schemas), splitList(cfg.allowExt), splitList(cfg.allowFunc)
	}
	f, err := conf.FromURLs(cfg.dbs, base)
	if err != nil {
		return nil, usageError{err}
	}
	return f, nil
}
