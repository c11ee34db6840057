package source

import (
	"context"
	"errors"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
)

// Engine is one kind of database sqlmcp can serve: SQLite, PostgreSQL,
// and whatever joins them (MySQL/MariaDB, DuckDB). Each lives in a package
// of its own under source/ (source/sqlite, source/postgres) that imports
// source, guard and its driver; source imports none of them.
//
// Registration is explicit, with no global list and no init function: an
// Engine is a value, and Open tries the ones Options.Engines lists, in
// order, and opens the dsn with the first that claims it. cmd/sqlmcp builds
// that list (the built-in engines from source/builtin, plus optional ones
// such as DuckDB, whose large library only the binary and the engine's own
// tests link); internal/dbtest passes the built-in ones. An engine's own
// settings (PostgreSQL's work_mem, say) are fields of its value, set by
// whoever builds the list.
//
// An Engine must be safe for concurrent use; its methods must not block
// (Open excepted).
type Engine interface {
	// Dialect names the engine's SQL dialect.
	Dialect() sqlmcp.Dialect
	// Claims reports whether dsn names one of this engine's databases:
	// by its URL scheme ("postgres://", "mysql://") or, for a file, by
	// its first bytes or its name. It must not connect anywhere. A path
	// that names no file is left to the engine that takes any path
	// (SQLite, listed last), which says the file is missing.
	Claims(dsn string) bool
	// Forms are the forms of --db this engine takes, one a line, as the
	// error for a dsn no engine claims lists them: "postgres://USER@HOST:5432/DB".
	Forms() []string
	// Open opens the database dsn names, read-only, and checks that it
	// answers and is what the engine expects: a peer speaking another
	// protocol (a MariaDB port given a postgres:// URL, a Redis port) is
	// a one-line error saying what answered, returned within the connect
	// timeout, never after Limits.Timeout of waiting. Errors name the host
	// and database, never the password.
	Open(ctx context.Context, dsn string, cfg Config) (Backend, error)
}

// Config is what Open hands every engine: the limits, with defaults
// filled in, the pool size, and what the operator allows beyond the
// built-in and vetted functions.
type Config struct {
	Limits   sqlmcp.Limits
	MaxConns int
	// AllowExtensions and AllowFunctions (schema.name) name extensions
	// and functions the operator allows queries to call. An engine that
	// has no such notion refuses a non-empty list with an error saying so.
	AllowExtensions, AllowFunctions []string
}

// Backend is one open database of an engine: a pool of read-only
// connections. It is safe for concurrent use.
type Backend interface {
	// Info describes the database; it never changes once open.
	Info() Info

	// Acquire takes a connection for one call, connecting when none is
	// idle. A connection that no longer holds the engine's read-only
	// settings or lexing (a pooler dropped them) is closed and an error
	// says why. It returns a *ConnError when no connection could be made.
	Acquire(ctx context.Context) (Conn, error)

	// ReadTables reads the catalog: every table and view the role can
	// read, in schemas (empty: every schema but the system ones), with
	// columns, keys and indexes. It reads through r (sqlmcp's own guarded
	// statements on this backend, see Reader) or by the engine's own
	// means, never around the read-only walls.
	ReadTables(ctx context.Context, r Reader, schemas []string) ([]TableDef, error)

	// SchemaVersion is a cheap number that changes whenever the schema
	// does (SQLite's schema_version); ok is false when the engine has
	// none, and the catalog is then read again after a while.
	SchemaVersion(ctx context.Context, r Reader) (version int64, ok bool, err error)

	// DataStamp is a cheap, comparable token that changes whenever any
	// data may have (a SQLite file's header and log), so row counts can
	// be kept until it does; nil when the engine has none, and counts are
	// kept for as long as the schema's reading.
	DataStamp() any

	// Quote quotes an identifier as the engine's SQL writes it: "a""b"
	// on PostgreSQL and SQLite.
	Quote(name string) string

	// Values is the engine's SQL for sampling a column's values and
	// counting its distinct ones (see ValueSQL).
	Values() ValueSQL

	// Ready reports whether the database answers now, cheaply, for a
	// readiness probe: nil, an *UnavailableError, or the engine's error.
	Ready(ctx context.Context) error

	// Close closes every connection; calls running finish first or fail.
	Close() error
}

// Info describes an open database.
type Info struct {
	Dialect sqlmcp.Dialect
	// Name names the database in logs and messages: a file's path, or a
	// URL without the password.
	Name string
	// Database is the database's own name: PostgreSQL's database, the
	// file's base name.
	Database string
	// Path is the database file, or "" for a server.
	Path string
	// Backstop is how long after Limits.Timeout sqlmcp gives up on a
	// call (its context ends and Conn.Cancel is called): zero when the
	// engine's own stop is the context (SQLite's interrupt), about a
	// second when the engine stops the statement itself first (a
	// server-side statement time limit).
	Backstop time.Duration
	// Retries is how many times a call is tried again, on another
	// connection, after a *ConnError before any row arrived (zero: never).
	Retries int
	// Guard names the walls, one line each, for the start log: "postgresql
	// parser (pg_query): one SELECT, safe functions only".
	Guard []string
}

// Conn is one connection, held for one call: Acquire, Run once, Release.
// Run and Release are called from one goroutine; Cancel from another.
type Conn interface {
	// Run runs st and hands its columns, then each row, to sink, until
	// sink.Row returns false or the rows end. Before anything reaches the
	// engine, the statement goes through the guard (the engine's own
	// checks in package guard): a refusal is returned as the guard's
	// error and nothing runs. It then runs in the engine's read-only mode
	// (a READ ONLY transaction, a read-only handle), under a time limit of
	// Limits.Timeout the engine enforces itself where it can (PostgreSQL's
	// statement_timeout, MariaDB's max_statement_time, MySQL's
	// MAX_EXECUTION_TIME), and no more than st.Fetch rows are transferred
	// (the statement is wrapped in a LIMIT where the engine would
	// otherwise send them all).
	//
	// Cells are typed Go values, never spelled for JSON: nil, bool,
	// int64 (whatever its size), float64 (NaN and infinities included),
	// json.Number for exact decimals, string, []byte, time.Time,
	// json.RawMessage for JSON documents, []any of cells for arrays; and
	// for st.Cut > 0, a text or BLOB longer than that read only so far, as
	// a Partial, or a value whose conversion waits for Cell, as a Lazy.
	//
	// Errors: the guard's *guard.Error or *guard.SyntaxError; a
	// *TimeoutError when the engine's time limit stopped the statement;
	// ctx's error when ctx ended (source words it); a *ConnError when the
	// connection or server failed, not the statement (safe to run again
	// when no row arrived); an *EngineError for the engine's own error,
	// classified by its code (SQLSTATE), never by its text.
	Run(ctx context.Context, st Statement, sink Sink) error

	// Cancel stops what Run is running, from another goroutine, once the
	// call's context has ended (the caller left, or Timeout + Backstop
	// passed): PostgreSQL's cancel request, MySQL's KILL QUERY from another
	// connection, SQLite's and DuckDB's interrupt. It returns once the
	// stop is sent (not once the statement ended); it may be called when
	// nothing runs, and must then do nothing to a later statement. An
	// engine whose driver already stops the statement when the context
	// ends says so in its Cancel and does nothing more.
	Cancel()

	// Release resets the connection and hands it back to the pool: the
	// transaction rolled back, everything the statement left in the
	// session discarded (settings, temporary objects, locks, prepared
	// statements). A connection that cannot be reset is closed. A reset
	// sent with the statement (in the same round trip) costs nothing more
	// here. err is Run's error; Release returns it, classified as Run's
	// contract says when only the reset found out (the connection broke: a
	// *ConnError), and, when the connection was closed while the engine
	// may still run the statement, wrapped so that
	// errors.Is(err, ErrLeftRunning) holds.
	Release(err error) error
}

// Statement is what Conn.Run runs.
type Statement struct {
	SQL  string
	Args []any // $1, $2… on PostgreSQL, ?1 or ? on SQLite and MySQL
	// Fetch is the most rows the caller can use (one past the cap, to
	// know whether there are more); zero means every row.
	Fetch int
	// Cut is the most bytes of one text value worth reading (the cell
	// limit); zero means every value whole, for sqlmcp's own reads.
	Cut int
	// Own marks sqlmcp's own catalog reads, whose cost is known: an
	// engine may give them more room than the model's queries (memory
	// for a sort) or skip per-call budgets that could keep sqlmcp from
	// starting.
	Own bool
	// Builtin marks the statements sqlmcp builds itself from catalog
	// names for the value tools (sampling, counting distinct values):
	// they run under the model's budgets, but a table and column policy
	// is not judged on them, since they name only columns the caller
	// already checked, and the caller redacts what they return.
	Builtin bool
	// Role is the database role the statement runs as (PostgreSQL's SET
	// LOCAL ROLE inside its read-only transaction), so the database's own
	// grants and row-level security apply to the caller; "" for the
	// connecting role. Only PostgreSQL's engine takes one.
	Role string
}

// Sink receives a statement's result. Columns is called once, before the
// first row (or, when the engine learns the types only after the rows,
// after the last); Row gets each row, and returns false when no more are
// wanted. Run must not keep row once Row returns.
type Sink struct {
	Columns func([]Column) // nil when the caller does not need them
	Row     func(row []any) bool
}

// Reader runs sqlmcp's own reads on a backend, through the same door as
// every statement: the guard, the read-only mode, the timeout. It returns
// every row, whole (see DB.Catalog).
type Reader interface {
	Catalog(ctx context.Context, sql string, args ...any) ([][]any, error)
}

// ErrLeftRunning marks a call whose connection was closed while the
// engine may still run its statement (see Conn.Release).
var ErrLeftRunning = errors.New("the database may still be running the statement")

// ConnError is an error of the connection or the server, not of the
// statement: the connection broke, the server was restarting, no
// connection could be made. A statement that sent no row is tried again on
// another connection (Info.Retries); once the tries are spent, an
// Unreachable one becomes an *UnavailableError.
type ConnError struct {
	// Unreachable means no working server could be reached at all (as
	// opposed to one that answered but cancelled the statement, such as
	// a standby's recovery conflict).
	Unreachable bool
	// Reason says why, on one line, without the password.
	Reason string
	Err    error
}

func (e *ConnError) Error() string { return e.Err.Error() }

// Unwrap returns the driver's error.
func (e *ConnError) Unwrap() error { return e.Err }

// LeftRunner is what a Backend implements when it can give up on a
// statement the engine did not stop (PostgreSQL, MySQL): how many such
// statements may still run, and a channel closed at the next change of
// that number. DB.LeftRunning reports 0 for other engines.
type LeftRunner interface {
	LeftRunning() (int, <-chan struct{})
}

// Pooler is what a Backend implements when it can say, cheaply, how its
// connection pool is used now (PostgreSQL, MySQL).
type Pooler interface {
	PoolStats() PoolStats
}

// PoolStats is how a connection pool is used at one moment.
type PoolStats struct {
	Open  int // connections open, idle or held
	InUse int // connections held by calls
	Max   int // the most the pool opens
}

// Restarter is what a Backend implements when it runs its engine in a
// process of its own that it replaces when that process ends while
// serving (DuckDB's worker): Restarts counts them by why.
type Restarter interface {
	Restarts() map[string]uint64
}

// Settler is what a Backend implements when Open returns before all it
// reads at start has been read (PostgreSQL's function catalog, read while
// the tables are): Settle waits for the rest, and its error fails the
// open as Open's would.
type Settler interface {
	Settle(ctx context.Context) error
}

// Warner is what a Backend implements when it has something to tell the
// operator at start: each a sentence for a log line, with the event name
// it goes under ("budget", "journal").
type Warner interface {
	Warnings() []Warning
}

// Warning is one thing an operator should know about the database.
type Warning struct {
	Event, Message string
}

// IntegrityChecker is what a Backend implements when it can check its
// storage for damage (SQLite's PRAGMA quick_check): Integrity returns what
// it found wrong, nil when sound. It reads through r, the door; ctx
// bounds it, and a check cut short returns ctx's error.
type IntegrityChecker interface {
	Integrity(ctx context.Context, r Reader) ([]string, error)
}

// SchemaLister is what a Backend implements when it has schemas its role
// may be refused (PostgreSQL): every schema but the system ones, sorted,
// whether the role may use each, and the role's name.
type SchemaLister interface {
	Schemas(ctx context.Context, r Reader) (schemas []SchemaDef, role string, err error)
}

// SchemaDef is a schema and whether the role may use it.
type SchemaDef struct {
	Name   string
	Usable bool
}

// RoleChecker is what a Backend implements when its role could be granted
// more than reading (PostgreSQL, MySQL): WriteAccess lists, in words for a
// log line, what the role could change if the read-only walls were not
// there (nil when it can only read), and ReadOnlyRoleSQL gives the
// statements that create a role that can only read.
type RoleChecker interface {
	WriteAccess(ctx context.Context, r Reader) ([]string, error)
	ReadOnlyRoleSQL(role string) string
}

// PolicyEnforcer is what a Backend implements when its guard can enforce a
// table and column policy (SQLite, PostgreSQL): once SetPolicy is called,
// every statement that is not sqlmcp's own (Statement.Own or Builtin) is refused when
// it reads what p denies or uses a masked column for anything but
// returning it, and the Columns of a result that returns a masked column
// carry its Mask. SetPolicy is called before the first such statement and
// again when the catalog, and so the policy's resolution, changes. A
// policy on a source whose backend is no PolicyEnforcer is an error at
// start.
type PolicyEnforcer interface {
	SetPolicy(p guard.PolicyCatalog)
}
