// Package source opens a database and is the one door through which sqlmcp
// reaches it: every statement, the model's and sqlmcp's own catalog reads,
// runs only after guard accepts it, on a connection the engine itself holds
// read-only, under a timeout that stops the work inside the engine.
//
// source sits between guard (below) and schema and tools (above). Each
// engine is a package of its own (source/sqlite, source/postgres) that
// implements Engine; source knows none of them (see Engine for how one is
// registered).
package source

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
)

// Options configure Open. The zero value, and nil, mean the defaults, but
// for Engines, which Open needs.
type Options struct {
	// Engines are the engines Open may open the dsn with, tried in order
	// (see Engine); source/builtin lists the built-in ones.
	Engines []Engine
	// Limits bound every statement; zero fields take their defaults.
	Limits sqlmcp.Limits
	// MaxConns is the most connections open at once. Default 8.
	MaxConns int
	// AllowExtensions and AllowFunctions (schema.name) let queries reach
	// extensions and functions beyond the built-in and vetted ones, on an
	// engine that has them (PostgreSQL). Each must exist in the database,
	// and no function that runs SQL text or reaches outside the session
	// can be allowed: Open fails otherwise.
	AllowExtensions, AllowFunctions []string
}

// DB is an open database. It is safe for concurrent use.
type DB struct {
	b      Backend
	info   Info
	limits sqlmcp.Limits

	wantPolicy atomic.Bool           // RequirePolicy was called
	policy     atomic.Pointer[holds] // nil until SetPolicy
}

type holds struct{ Policy }

// Open opens the database dsn names, read-only, with the first of
// opts.Engines that claims it, and checks that it answers. A dsn no engine
// claims is an error listing the engines and the forms each takes; a
// missing file, a file that is not a database, a malformed URL or a server
// that cannot be reached is an error that says so, naming the host and
// database but never the password.
func Open(ctx context.Context, dsn string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	if dsn == "" {
		return nil, errors.New("no database given: pass --db PATH or URL (or --demo)")
	}
	cfg := Config{Limits: opts.Limits.WithDefaults(), MaxConns: opts.MaxConns,
		AllowExtensions: opts.AllowExtensions, AllowFunctions: opts.AllowFunctions}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 8
	}
	for _, e := range opts.Engines {
		if !e.Claims(dsn) {
			continue
		}
		b, err := e.Open(ctx, dsn, cfg)
		if err != nil {
			return nil, err
		}
		return &DB{b: b, info: b.Info(), limits: cfg.Limits}, nil
	}
	return nil, unclaimed(dsn, opts.Engines)
}

// unclaimed words a dsn no engine takes: what it looks like, and the
// engines this build has with the forms of --db each takes.
func unclaimed(dsn string, engines []Engine) error {
	if len(engines) == 0 {
		return errors.New("no database engine is built in (source.Options.Engines is empty)")
	}
	what := "is not a database file or URL"
	if scheme, _, ok := strings.Cut(dsn, "://"); ok {
		what = fmt.Sprintf("is a %s:// URL, which no engine of this build reads", scheme)
	}
	var b strings.Builder
	names := make([]string, len(engines))
	for i, e := range engines {
		names[i] = string(e.Dialect())
		for _, f := range e.Forms() {
			fmt.Fprintf(&b, "\n  %s", f)
		}
	}
	return fmt.Errorf("--db %s %s: this build serves %s; --db takes:%s",
		redactURL(dsn), what, strings.Join(names, ", "), b.String())
}

// redactURL drops the password from a URL-shaped dsn.
func redactURL(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return dsn
	}
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return dsn
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + "@" + rest[at+1:]
}

// Door returns the door over b, for an engine's own reads while it
// opens, before Open has made the DB: the same guard, read-only mode and
// limits as every call.
func Door(b Backend, limits sqlmcp.Limits) *DB {
	return &DB{b: b, info: b.Info(), limits: limits}
}

// Backend is the engine's side of db, for the engine's own tests.
func (db *DB) Backend() Backend { return db.b }

// Dialect reports the database's SQL dialect.
func (db *DB) Dialect() sqlmcp.Dialect { return db.info.Dialect }

// Name names the database for logs and messages; it never holds a password.
func (db *DB) Name() string { return db.info.Name }

// DatabaseName is the database's own name: PostgreSQL's database, or the
// SQLite file's name.
func (db *DB) DatabaseName() string { return db.info.Database }

// Path is the database file, or "" for a server.
func (db *DB) Path() string { return db.info.Path }

// Guard names the walls every statement passes, one line each.
func (db *DB) Guard() []string { return db.info.Guard }

// Limits reports the limits every statement runs under.
func (db *DB) Limits() sqlmcp.Limits { return db.limits }

// Quote quotes an identifier as the engine writes it.
func (db *DB) Quote(name string) string { return db.b.Quote(name) }

// Close closes the database.
func (db *DB) Close() error { return db.b.Close() }

// Ready reports whether the database answers now: nil, an
// *UnavailableError, or the engine's error.
func (db *DB) Ready(ctx context.Context) error { return db.b.Ready(ctx) }

// ReadTables reads the catalog (see Backend.ReadTables).
func (db *DB) ReadTables(ctx context.Context, schemas []string) ([]TableDef, error) {
	return db.b.ReadTables(ctx, db, schemas)
}

// SchemaVersion is a number that changes with the schema; ok is false
// when the engine has none (see Backend.SchemaVersion).
func (db *DB) SchemaVersion(ctx context.Context) (int64, bool, error) {
	return db.b.SchemaVersion(ctx, db)
}

// DataStamp is a token that changes when the data may have; nil when the
// engine has none (see Backend.DataStamp).
func (db *DB) DataStamp() any { return db.b.DataStamp() }

// LeftRunning reports how many statements sqlmcp gave up on that the
// database may still be running (PostgreSQL backends whose connection was
// closed because they did not stop), and a channel closed at the next
// change of that number. Such statements still use the database: callers
// that bound concurrent work count them. It is always 0 on engines that
// stop every statement they run (SQLite).
func (db *DB) LeftRunning() (int, <-chan struct{}) {
	if l, ok := db.b.(LeftRunner); ok {
		return l.LeftRunning()
	}
	return 0, nil
}

// Restarts counts the engine processes the backend replaced, by why,
// and false on an engine that runs none (see Restarter).
func (db *DB) Restarts() (map[string]uint64, bool) {
	if r, ok := db.b.(Restarter); ok {
		return r.Restarts(), true
	}
	return nil, false
}

// PoolStats reports how the connection pool is used now, and false on an
// engine that does not say (see Pooler).
func (db *DB) PoolStats() (PoolStats, bool) {
	if p, ok := db.b.(Pooler); ok {
		return p.PoolStats(), true
	}
	return PoolStats{}, false
}

// Settle waits until the engine has read all it reads at start, and
// returns what failed (see Settler).
func (db *DB) Settle(ctx context.Context) error {
	if s, ok := db.b.(Settler); ok {
		return s.Settle(ctx)
	}
	return nil
}

// Warnings are what the operator should know about the database at start
// (a budget the role cannot set, a SQLite file in rollback-journal mode).
func (db *DB) Warnings() []Warning {
	if w, ok := db.b.(Warner); ok {
		return w.Warnings()
	}
	return nil
}

// Integrity checks the database's storage for damage, on an engine that
// can (see IntegrityChecker): what it found wrong, nil when sound, and
// false when the engine has no such check.
func (db *DB) Integrity(ctx context.Context) ([]string, bool, error) {
	ic, ok := db.b.(IntegrityChecker)
	if !ok {
		return nil, false, nil
	}
	found, err := ic.Integrity(ctx, db)
	return found, true, err
}

// Schemas lists the database's schemas and the role's name, on an engine
// that has schemas its role may be refused (see SchemaLister); nil and ""
// on others.
func (db *DB) Schemas(ctx context.Context) ([]SchemaDef, string, error) {
	if sl, ok := db.b.(SchemaLister); ok {
		return sl.Schemas(ctx, db)
	}
	return nil, "", nil
}

// WriteAccess reports, in words for a log line, what the role the database
// is opened as could change if the read-only walls were not there, or nil
// when it can only read; see the engine's RoleChecker. It is an error on
// an engine without roles (SQLite, opened read-only).
func (db *DB) WriteAccess(ctx context.Context) ([]string, error) {
	if rc, ok := db.b.(RoleChecker); ok {
		return rc.WriteAccess(ctx, db)
	}
	return nil, fmt.Errorf("roles are not a %s matter: the database is opened read-only", db.info.Dialect)
}

// HasRoles reports whether the engine connects as a role whose rights
// WriteAccess can read (PostgreSQL, MySQL), rather than opening the
// database read-only itself (SQLite, DuckDB).
func (db *DB) HasRoles() bool {
	_, ok := db.b.(RoleChecker)
	return ok
}

// ReadOnlyRoleSQL returns the statements that create a login role that can
// only read this database, or "" on an engine without roles.
func (db *DB) ReadOnlyRoleSQL(role string) string {
	if rc, ok := db.b.(RoleChecker); ok {
		return rc.ReadOnlyRoleSQL(role)
	}
	return ""
}

// Query runs one statement the guard accepts and returns its result as
// cells, cut to maxRows rows (zero means Limits.MaxRows; more than
// Limits.MaxRowsLimit is an error) and to Limits.MaxBytes, with the cut
// always reported. It returns the guard's *guard.Error for a refused
// statement, a *TimeoutError when Limits.Timeout stopped it, ctx's error
// when the caller cancelled, an *UnavailableError when the database could
// not be reached (after retries on fresh connections), or the engine's
// error.
func (db *DB) Query(ctx context.Context, sql string, maxRows int, args ...any) (*Result, error) {
	switch {
	case maxRows < 0:
		return nil, fmt.Errorf("max_rows must be positive, not %d", maxRows)
	case maxRows == 0:
		maxRows = db.limits.MaxRows
	case maxRows > db.limits.MaxRowsLimit:
		return nil, fmt.Errorf("max_rows %d is more than this server allows (%d); ask for fewer rows or aggregate", maxRows, db.limits.MaxRowsLimit)
	}
	return db.query(ctx, Statement{SQL: sql, Args: args}, maxRows)
}

// query is Query for st.SQL and st.Args, maxRows already checked, and
// st.Builtin as the caller says.
func (db *DB) query(ctx context.Context, st Statement, maxRows int) (*Result, error) {
	pol := db.policy.Load()
	if pol == nil && db.wantPolicy.Load() {
		return nil, errNoPolicy
	}
	if st.Role = RoleFrom(ctx); st.Role != "" && db.info.Dialect != sqlmcp.Postgres {
		return nil, fmt.Errorf("a database role can be given to calls on PostgreSQL only, not on %s", db.info.Dialect)
	}
	res := &Result{}
	b := newBudget(db.limits, maxRows)
	start := time.Now()
	// One row past the cap is fetched, to know whether there are more.
	st.Fetch, st.Cut = maxRows+1, db.limits.MaxCellBytes
	var masks []*guard.MaskedColumn
	err := db.run(ctx, st, Sink{Columns: func(cols []Column) {
		res.Columns = cutNames(cols)
		masks = masks[:0]
		for i, c := range res.Columns {
			if c.Mask != nil {
				masks = append(masks, c.Mask)
				res.Columns[i].Type = "masked" // its values are the policy's redaction, not the column's type
			}
		}
	},
		Row: func(row []any) bool {
			for _, m := range masks {
				switch {
				case m.Position >= len(row):
				case pol == nil:
					// The engine's guard was given a policy the door was not
					// (a test's): redact with no key.
					row[m.Position] = maskedMarker
				default:
					v := row[m.Position]
					if l, ok := v.(Lazy); ok {
						v = l.Cell(db.limits.MaxCellBytes)
					}
					row[m.Position] = pol.Redact(*m, v)
				}
			}
			cells, ok := b.add(row)
			if !ok {
				return false
			}
			res.Rows = append(res.Rows, cells)
			return true
		}})
	res.Elapsed = time.Since(start)
	if err != nil {
		return nil, err
	}
	res.Truncated, res.TruncatedBy = b.cut != "", b.cut
	if res.Rows == nil {
		res.Rows = [][]any{}
	}
	return res, nil
}

type roleKey struct{}

// WithRole returns ctx whose statements (the model's and the value tools',
// never sqlmcp's own catalog reads) run as the database role role.
func WithRole(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, roleKey{}, role)
}

// RoleFrom is the role ctx's statements run as; "" for the connecting one.
func RoleFrom(ctx context.Context) string {
	r, _ := ctx.Value(roleKey{}).(string)
	return r
}

// Policy is a table and column policy resolved against the catalog, as
// the door needs it (package policy's *Policy is one): what the engine's
// guard enforces, and how masked values are shown.
type Policy interface {
	guard.PolicyCatalog
	// Access is what the policy lets a query do with the column of the
	// relation schema.table, as the catalog spells them.
	Access(schema, table, column string) guard.Access
	// Redact is what is shown for value v of the masked column m.
	Redact(m guard.MaskedColumn, v any) any
}

// maskedMarker is a masked value shown without a policy's redaction.
const maskedMarker = "[masked]"

var errNoPolicy = errors.New("this database's table and column policy could not be applied yet (its catalog has not been read); try again shortly")

// RequirePolicy makes db refuse every statement of the model's until
// SetPolicy gives it a policy: a source with a policy is never served
// without it, not even before its catalog could be read.
func (db *DB) RequirePolicy() { db.wantPolicy.Store(true) }

// SetPolicy has the engine's guard enforce p on every statement of the
// model's from now on (see PolicyEnforcer), and the door redact the
// masked columns of every result. An engine whose guard cannot enforce a
// policy is an error, and db then refuses the model's statements when
// RequirePolicy was called. Call it again when the catalog is read anew.
func (db *DB) SetPolicy(p Policy) error {
	e, ok := db.b.(PolicyEnforcer)
	if !ok {
		return fmt.Errorf("a table and column policy cannot be enforced on %s databases; serve it without one, or with a database role that can read only what the model may see", db.info.Dialect)
	}
	e.SetPolicy(p)
	db.policy.Store(&holds{p})
	return nil
}

// access is what the policy lets the value tools do with a column: every
// column is Allowed without a policy.
func (db *DB) access(t TableRef, col string) (Policy, guard.Access) {
	h := db.policy.Load()
	if h == nil {
		return nil, guard.Allowed
	}
	return h.Policy, h.Access(t.Schema, t.Name, col)
}

// Catalog runs one of sqlmcp's own catalog statements through the same
// guard and returns every row, uncut, as the engine's cells (see
// Conn.Run): int64, float64, json.Number, bool, json.RawMessage, string,
// []byte, []any for arrays, or nil. Arguments are $1, $2... on
// PostgreSQL. It is for schema reads, not model SQL.
func (db *DB) Catalog(ctx context.Context, sql string, args ...any) ([][]any, error) {
	var rows [][]any
	err := db.run(ctx, Statement{SQL: sql, Args: args, Own: true}, Sink{Row: func(row []any) bool {
		rows = append(rows, row)
		return true
	}})
	return rows, err
}

// TimeoutError reports a statement that ran past Limits.Timeout: stopped
// inside the database, or, when Running is set, cancelled by sqlmcp but not
// stopped by the database within a short grace.
type TimeoutError struct {
	Timeout time.Duration
	// Running means the database did not stop the statement: it may still
	// be running, and DB.LeftRunning counts it until it ends.
	Running bool
}

func (e *TimeoutError) Error() string {
	const cheaper = "make it cheaper: filter with WHERE, aggregate, add LIMIT, or avoid joins that multiply rows"
	if e.Running {
		return fmt.Sprintf("the query ran longer than the %s timeout and sqlmcp cancelled it, but the database did not stop the query; "+
			"it may still be running, and takes one of this server's turns until it ends. "+
			"Do not send it again: %s, or avoid functions the database cannot interrupt", e.Timeout, cheaper)
	}
	return fmt.Sprintf("the query ran longer than the %s timeout and was stopped inside the database; %s", e.Timeout, cheaper)
}

// UnavailableError reports a call that failed because the database could
// not be reached or was restarting, after the retries. The pool connects
// again on the next call, so a later call works once the database is back.
type UnavailableError struct {
	Reason string // what the driver or the server said, without the password
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("the database is unavailable (%s); retrying in the background", e.Reason)
}

// Unwrap returns the driver's error.
func (e *UnavailableError) Unwrap() error { return e.Err }

// EngineError is an error the database engine reported about a statement,
// in the engine's own words.
type EngineError struct {
	Message string // "column \"mail\" does not exist"
	// Code is the SQLSTATE the engine reported or, for an engine without
	// them (SQLite), the one its package assigns to the errors it tells
	// apart (UndefinedTable and the others below); "" for the rest.
	// Callers classify errors by Code, never by Message, which engines may
	// translate.
	Code     string
	Position int // 1-based character position in the statement; 0 when unknown
	Detail   string
	Hint     string // the engine's own hint
	// Name is what an undefined-table, -column or -function error is
	// about, as the statement wrote it ("customer", "c.mail"), when the
	// engine can tell; "" otherwise.
	Name string
	// Raised is true when the message may be a function's own words
	// rather than the engine's wording: it arose inside a function the
	// database defines (PL/pgSQL's RAISE writes what it is given, row
	// values too). Logs then keep the SQLSTATE alone (Redacted).
	Raised bool
	Err    error
}

// The SQLSTATEs callers tell apart.
const (
	SyntaxError       = "42601"
	UndefinedTable    = "42P01"
	UndefinedColumn   = "42703"
	UndefinedFunction = "42883"
	// OutOfMemory is a statement that needed more memory than the engine
	// may use.
	OutOfMemory = "53200"
)

func (e *EngineError) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Message + " (SQLSTATE " + e.Code + ")"
}

// Unwrap returns the driver's error.
func (e *EngineError) Unwrap() error { return e.Err }

// run is the door: it takes a connection, runs st on it under the
// timeout, cancels it in the engine when the call's context ends, resets
// the connection, and tries again on another connection when the
// connection, not the statement, failed before any row.
func (db *DB) run(ctx context.Context, st Statement, sink Sink) (err error) {
	ctx, span := StartStep(ctx, Step{Name: StepStatement, Dialect: db.info.Dialect, Own: st.Own})
	// seen is one variable, not two, for the closure below to share.
	var seen struct {
		began bool
		rows  int
	}
	defer func() { span.End(seen.rows, err) }()
	qctx, cancel := withDeadline(ctx, db.limits.Timeout+db.info.Backstop)
	defer cancel()
	connected := true
	for attempt := 0; ; attempt++ {
		seen.began = false
		row := sink.Row
		connected, err = db.once(qctx, st, Sink{Columns: sink.Columns, Row: func(r []any) bool {
			seen.began = true
			seen.rows++
			return row(r)
		}})
		var ce *ConnError
		if err == nil || seen.began || qctx.Err() != nil || !errors.As(err, &ce) {
			break
		}
		if attempt >= db.info.Retries {
			if ce.Unreachable {
				return &UnavailableError{Reason: ce.Reason, Err: ce.Err}
			}
			break
		}
		countRetry(ctx)
	}
	running := errors.Is(err, ErrLeftRunning)
	var ce *ConnError
	if errors.As(err, &ce) {
		err = ce.Err // the driver's own words, as the engine gave them
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil && running:
		return fmt.Errorf("query cancelled, but the database did not stop the query; it may still be running: %w", ctx.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("query cancelled: %w", ctx.Err())
	case ce != nil && !connected:
		// No connection was made in time: the server did not answer.
		return &UnavailableError{Reason: ce.Reason, Err: err}
	case ce != nil && ce.Unreachable && seen.began:
		// The connection died mid-result: rows were already handed on, so
		// the call is not run again, but it failed for the same reason.
		return &UnavailableError{Reason: ce.Reason, Err: err}
	case !connected && errors.Is(qctx.Err(), context.DeadlineExceeded):
		// No connection came within the time: nothing was sent, so
		// nothing ran, and only the database could say it stopped a
		// statement.
		return &UnavailableError{Reason: fmt.Sprintf("no connection to it within the %s timeout", db.limits.Timeout), Err: err}
	case running && errors.Is(qctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{Timeout: db.limits.Timeout, Running: true}
	case errors.Is(qctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{Timeout: db.limits.Timeout}
	}
	return err
}

// once runs st on one connection: Acquire, Run with Cancel armed on ctx,
// Release. connected is false when no connection could be had.
func (db *DB) once(ctx context.Context, st Statement, sink Sink) (connected bool, err error) {
	conn, err := db.b.Acquire(ctx)
	if err != nil {
		return false, err
	}
	done, ran := make(chan struct{}), make(chan struct{})
	unwatch := context.AfterFunc(ctx, func() {
		defer close(done)
		conn.Cancel()
		// An engine whose interrupt reaches only a statement already
		// running loses one that comes before the statement starts (a
		// call cancelled while it compiles): cancel again until Run
		// returns. SQLite's engine also keeps a stop flag of its own, and
		// MySQL's ends the connection.
		t := time.NewTicker(recancelEvery)
		defer t.Stop()
		for {
			select {
			case <-ran:
				return
			case <-t.C:
				conn.Cancel()
			}
		}
	})
	err = conn.Run(ctx, st, sink)
	close(ran)
	// A cancel under way finishes before the connection is reset, so it
	// cannot reach a later statement.
	if !unwatch() {
		<-done
	}
	return true, conn.Release(err)
}

// recancelEvery is how often a cancelled call's Cancel is repeated while
// its statement still runs.
const recancelEvery = 200 * time.Millisecond
