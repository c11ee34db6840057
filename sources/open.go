// Package sources opens the databases a configuration names and checks
// each before it serves: that it answers, that what its configuration
// names exists, what its role may read and write, that a SQLite file is
// sound. It keeps them as a Set that tools reach by name, each opened on
// first use or in the background, retried while it is down, and never
// sharing a connection, a cache or a limit with another.
//
// sources sits above config, source and schema, and below tools and the
// command.
package sources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/policy"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// Report is what opening and checking one source found: what sqlmcp can
// say about it before serving it, for the start log and sqlmcp check.
type Report struct {
	Name     string
	Engine   sqlmcp.Dialect // "" when the source could not be opened
	Database string         // the database as logs name it, no secrets
	// Guard names the walls every statement passes, in order.
	Guard []string
	// Role is what the PostgreSQL role may do: "read-only", or the
	// writes it could make; "" on SQLite.
	Role    string
	Limits  sqlmcp.Limits
	Tables  int
	Schemas []string // PostgreSQL: the schemas of the tables found
	// Policy describes the effective table and column policy, a line per
	// relation it hides or restricts; nil without a policy.
	Policy []string
	// Problems are every problem found, errors and warnings.
	Problems []Problem
	// Unavailable is why the source could not be opened; "" when it was.
	Unavailable string
}

// Problem is one problem with a source.
type Problem struct {
	Kind string // as schema.Problem's, or "role", "budget", "journal"
	Msg  string // with its place and fix
	// Fatal: the source cannot be served until it is fixed (not a
	// warning, and not a kind the source tolerates).
	Fatal bool
}

// Err is why the source cannot be served: it could not be opened, or a
// problem is fatal; nil when it can.
func (r *Report) Err() error {
	if r.Unavailable != "" {
		return fmt.Errorf("database %s is unavailable: %s", r.Name, r.Unavailable)
	}
	var msgs []string
	for _, p := range r.Problems {
		if p.Fatal {
			msgs = append(msgs, p.Msg)
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("database %s: %s", r.Name, strings.Join(msgs, "\n"))
	}
	return nil
}

// Warnings are the problems that do not stop the source.
func (r *Report) Warnings() []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if !p.Fatal {
			out = append(out, p)
		}
	}
	return out
}

// Engines are the engines a source may be opened with: the built-in
// ones, PostgreSQL with the source's budgets.
func Engines(cfg *config.Source) []source.Engine {
	return builtin.Engines(&postgres.Engine{WorkMem: cfg.PGWorkMem, TempFileLimit: cfg.PGTempFileLimit})
}

// Open opens the source cfg describes with the first of engines that
// claims it (nil: Engines) and checks it (see the package doc). It returns
// the database and its catalog ready to serve, or nil when the report's
// Err says why not; the report is never nil.
func Open(ctx context.Context, cfg *config.Source, engines func(*config.Source) []source.Engine) (*source.DB, *schema.Catalog, *Report) {
	r, rest := openInParts(ctx, cfg, engines)
	if rest == nil {
		return nil, nil, r
	}
	return rest(ctx)
}

// openInParts is Open in two parts. The report it returns first covers
// every check but three slow reads: the one of the whole database
// (SQLite's quick_check, up to a few seconds on a big file), the engine's
// settling (PostgreSQL's function catalog, which the guard judges calls
// by) and, unless it is fatal (lateRole), the role's check; rest,
// nil when the source already failed, makes those and returns what Open
// does.
// The report rest returns is another: the first stays as it was.
func openInParts(ctx context.Context, cfg *config.Source, engines func(*config.Source) []source.Engine) (*Report, func(context.Context) (*source.DB, *schema.Catalog, *Report)) {
	if engines == nil {
		engines = Engines
	}
	r := &Report{Name: cfg.Name, Limits: cfg.Limits.WithDefaults()}
	// Room for every allowed call plus the catalog and /readyz.
	db, err := source.Open(ctx, cfg.URL, &source.Options{Limits: cfg.Limits, MaxConns: max(8, cfg.MaxConcurrency+2),
		AllowExtensions: cfg.AllowExtensions, AllowFunctions: cfg.AllowFunctions, Engines: engines(cfg)})
	if err != nil {
		r.Unavailable = err.Error()
		return r, nil
	}
	r.Engine, r.Database, r.Limits, r.Guard = db.Dialect(), db.Name(), db.Limits(), db.Guard()
	cat, err := check(ctx, db, cfg, r)
	if err != nil {
		r.Unavailable = err.Error()
	}
	if r.Err() != nil {
		db.Close()
		return r, nil
	}
	first := *r
	first.Problems = slices.Clip(first.Problems)
	return &first, func(ctx context.Context) (*source.DB, *schema.Catalog, *Report) {
		cctx, cancel := context.WithTimeout(ctx, r.Limits.Timeout)
		defer cancel()
		var roleErr error
		var wg sync.WaitGroup
		if lateRole(db, cfg) {
			wg.Go(func() { roleErr = checkRole(cctx, db, cfg, r) })
		}
		err := db.Settle(cctx)
		wg.Wait()
		switch {
		case err != nil:
			r.Unavailable = err.Error()
		case roleErr != nil:
			r.Unavailable = roleErr.Error()
		default:
			addProblems(r, cfg, cat.CheckStorage(cctx))
		}
		if r.Err() != nil {
			db.Close()
			return nil, nil, r
		}
		return db, cat, r
	}
}

// check reads db's catalog and checks it against cfg, filling r.
func check(ctx context.Context, db *source.DB, cfg *config.Source, r *Report) (*schema.Catalog, error) {
	cat, err := schema.New(db, &schema.Options{Annotations: cfg.Annotations, Descriptions: cfg.Descriptions,
		Schemas: cfg.Schemas, HideUnreadable: cfg.HideUnreadable, Policy: cfg.Policy})
	if err != nil {
		r.add("annotations", cfg.Where("annotations"), err.Error(), !cfg.Tolerates("annotations"))
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, r.Limits.Timeout)
	defer cancel()
	if cfg.Policy != nil {
		var pe *policy.Error
		if _, err := cat.Tables(cctx); errors.As(err, &pe) {
			r.add("policy", "", pe.Msg, true)
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading the catalog: %w", err)
		}
		r.Policy = cat.Policy().Lines()
	}
	err = cat.CheckCatalog(cctx)
	ce, isCheck := schema.IsCheckError(err)
	if err != nil && !isCheck {
		// A damaged file's catalog may not read: say what is damaged.
		if damage := cat.CheckStorage(cctx); len(damage) > 0 && !damage[0].Warning {
			addProblems(r, cfg, damage)
			return nil, nil
		}
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	if isCheck {
		addProblems(r, cfg, ce.Problems)
	}
	if tables, err := cat.Tables(cctx); err == nil {
		r.Tables = len(tables)
	}
	r.Schemas, _ = cat.Schemas(cctx)
	if db.HasRoles() && !lateRole(db, cfg) { // a late one is checked by the rest of the try
		if err := checkRole(cctx, db, cfg, r); err != nil {
			return nil, err
		}
	}
	for _, w := range db.Warnings() {
		r.add(w.Event, "", w.Message, false)
	}
	return cat, nil
}

// lateRole reports whether the role's check is one of the slow reads the
// first report does not wait for: when its finding can only warn. With
// require_readonly_role it is fatal, and a server that must refuse to
// start refuses before its first call.
func lateRole(db *source.DB, cfg *config.Source) bool {
	return db.HasRoles() && !cfg.RequireReadonlyRole
}

// checkRole finds what the role could write; with
// require_readonly_role, a role that could is fatal. The advice names
// the schemas the catalog found.
func checkRole(ctx context.Context, db *source.DB, cfg *config.Source, r *Report) error {
	found, err := db.WriteAccess(ctx)
	if err != nil {
		return fmt.Errorf("checking what the role may write: %w", err)
	}
	if len(found) == 0 {
		r.Role = "read-only"
		return nil
	}
	r.Role = "could write: " + strings.Join(found, "; ")
	fix := db.ReadOnlyRoleSQL("sqlmcp_ro")
	if db.Dialect() == sqlmcp.Postgres {
		fix = postgres.ReadOnlyRoleSQL("sqlmcp_ro", db.DatabaseName(), r.Schemas...) // naming the schemas found
	}
	msg := "the role could write (" + strings.Join(found, "; ") + "); sqlmcp's guard and read-only transactions still stop every write, but connect as a read-only role so a third wall holds, e.g. one made by:\n" + fix
	if cfg.RequireReadonlyRole {
		msg = "require_readonly_role: the role could write (" + strings.Join(found, "; ") + "); connect as a read-only role, e.g. one made by:\n" + fix
	}
	r.add("role", cfg.Where("require_readonly_role"), msg, cfg.RequireReadonlyRole)
	return nil
}

// addProblems adds what the catalog's checks found to r, each fatal
// unless a warning or of a kind cfg tolerates; a damaged file never is.
func addProblems(r *Report, cfg *config.Source, problems []schema.Problem) {
	for _, p := range problems {
		key := p.Kind
		if key == "grants" {
			key = "schemas"
		}
		where := cfg.Where(key)
		if p.File != "" || p.Kind == "corrupt" {
			where = "" // the annotations file's own line, or the file itself
		}
		fatal := !p.Warning && (p.Kind == "corrupt" || !cfg.Tolerates(p.Kind))
		r.add(p.Kind, where, p.Error(), fatal)
	}
}

func (r *Report) add(kind, where, msg string, fatal bool) {
	if where != "" {
		msg = where + ": " + msg
	}
	r.Problems = append(r.Problems, Problem{Kind: kind, Msg: msg, Fatal: fatal})
}

// ErrUnknown is returned for a database name the set does not hold.
var ErrUnknown = errors.New("no such database")
