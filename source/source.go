// Package source opens a database and is the one door through which sqlmcp
// reaches it: every statement, the model's and sqlmcp's own catalog reads,
// runs only after guard accepts it, on a connection the engine itself holds
// read-only, under a timeout that stops the work inside the engine.
//
// source sits between guard (below) and schema and tools (above).
package source

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp"
)

// Options configure Open. The zero value, and nil, mean the defaults.
type Options struct {
	// Limits bound every statement; zero fields take their defaults.
	Limits sqlmcp.Limits
	// MaxConns is the most connections open at once. Default 8.
	MaxConns int
	// AllowExtensions and AllowFunctions (schema.name) let queries reach,
	// on PostgreSQL, extensions and functions beyond the built-in and
	// vetted ones. Each must exist in the database, and no function that
	// runs SQL text or reaches outside the session can be allowed: Open
	// fails otherwise.
	AllowExtensions, AllowFunctions []string
	// PostgresWorkMem is work_mem for every PostgreSQL call, written as
	// PostgreSQL writes it ("32MB"). Default DefaultPostgresWorkMem.
	PostgresWorkMem string
	// PostgresTempFileLimit is temp_file_limit for every PostgreSQL call
	// ("1GB"), set when the role may (see DB.BudgetWarning); "-1" sets
	// none. Default DefaultPostgresTempFileLimit.
	PostgresTempFileLimit string
}

// DB is an open database. It is safe for concurrent use.
type DB struct {
	dialect  sqlmcp.Dialect
	name     string // how to name the database in logs and messages, no secrets
	path     string // the SQLite file; "" for other engines
	database string // PostgreSQL's database name
	limits   sqlmcp.Limits
	sq       *sqliteFile // SQLite
	pg       *pgDB       // PostgreSQL
}

// Open opens the database dsn names, read-only, and checks that it answers.
// dsn is a SQLite file path, a sqlite: or file: URL, or a postgres:// or
// postgresql:// URL (missing parts come from the standard PG* environment
// variables). A missing file, a file that is not a SQLite database, a
// malformed URL or a server that cannot be reached is an error that says
// so, naming the host and database but never the password.
func Open(ctx context.Context, dsn string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	limits := opts.Limits.WithDefaults()
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = 8
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		budget, err := newPGBudget(opts)
		if err != nil {
			return nil, err
		}
		d := &DB{dialect: sqlmcp.Postgres, limits: limits}
		allow := pgAllow{extensions: opts.AllowExtensions, functions: opts.AllowFunctions}
		if err := openPostgres(ctx, dsn, maxConns, allow, budget, d); err != nil {
			return nil, err
		}
		return d, nil
	}
	if len(opts.AllowExtensions)+len(opts.AllowFunctions) > 0 {
		return nil, errors.New("--allow-extension and --allow-function apply to PostgreSQL only")
	}
	path, err := sqlitePath(dsn)
	if err != nil {
		return nil, err
	}
	db, err := openSQLiteFile(path, maxConns)
	if err != nil {
		return nil, err
	}
	d := &DB{dialect: sqlmcp.SQLite, name: path, path: path, limits: limits, sq: db}
	ctx, cancel := context.WithTimeout(ctx, limits.Timeout)
	defer cancel()
	if _, err := d.Catalog(ctx, "SELECT count(*) FROM sqlite_schema"); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return d, nil
}

// Dialect reports the database's SQL dialect.
func (db *DB) Dialect() sqlmcp.Dialect { return db.dialect }

// Name names the database for logs and messages; it never holds a password.
func (db *DB) Name() string { return db.name }

// DatabaseName is the database's own name: PostgreSQL's database, or the
// SQLite file's name.
func (db *DB) DatabaseName() string {
	if db.database == "" {
		return filepath.Base(db.path)
	}
	return db.database
}

// Path is the SQLite database file, or "" for other engines.
func (db *DB) Path() string { return db.path }

// Limits reports the limits every statement runs under.
func (db *DB) Limits() sqlmcp.Limits { return db.limits }

// Close closes the database.
func (db *DB) Close() error {
	if db.pg != nil {
		db.pg.left.stop()
		db.pg.pool.Close()
		return nil
	}
	return db.sq.Close()
}

// Query runs one statement the guard accepts and returns its result as
// JSON-safe cells, cut to maxRows rows (zero means Limits.MaxRows; more
// than Limits.MaxRowsLimit is an error) and to Limits.MaxBytes, with the cut
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
	res := &Result{}
	b := newBudget(db.limits, maxRows)
	start := time.Now()
	// One row past the cap is fetched, to know whether there are more.
	err := db.run(ctx, sql, args, maxRows+1, func(cols []Column) { res.Columns = cols },
		func(row []any) bool {
			cells, ok := b.add(row)
			if !ok {
				return false
			}
			res.Rows = append(res.Rows, cells)
			return true
		})
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

// Catalog runs one of sqlmcp's own catalog statements through the same
// guard and returns every row, uncut. SQLite values come as the driver
// gives them (int64, float64, string, []byte or nil); PostgreSQL values as
// Query converts them, before any cut (int64, float64, json.Number, bool,
// json.RawMessage, string, []byte for bytea, []any for arrays, or nil).
// Arguments are $1, $2... on PostgreSQL. It is for schema reads, not model
// SQL.
func (db *DB) Catalog(ctx context.Context, sql string, args ...any) ([][]any, error) {
	var rows [][]any
	err := db.run(ctx, sql, args, 0, nil, func(row []any) bool {
		rows = append(rows, row)
		return true
	})
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

// run is the door: it takes a connection, runs sql through the guard with
// the timeout set, hands the columns to columns (when not nil) and each row
// to emit until emit returns false or the rows end. fetch is the most rows
// the caller can use (zero: all); PostgreSQL transfers no more.
func (db *DB) run(ctx context.Context, sql string, args []any, fetch int, columns func([]Column), emit func([]any) bool) error {
	if db.pg != nil {
		// statement_timeout stops the work inside PostgreSQL; the context
		// is the backstop, a little later.
		qctx, cancel := context.WithTimeout(ctx, db.limits.Timeout+pgBackstop)
		defer cancel()
		err := db.runPostgres(qctx, sql, args, fetch, columns, emit)
		// A connection closed mid-call may have left its statement running.
		running := errors.As(err, new(*pgLeftRunning))
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil && running:
			return fmt.Errorf("query cancelled, but the database did not stop the query; it may still be running: %w", ctx.Err())
		case ctx.Err() != nil:
			return fmt.Errorf("query cancelled: %w", ctx.Err())
		case pgNoConnection(err):
			// No connection was made in time: the server did not answer.
			return &UnavailableError{Reason: pgReason(db.pg.dsn, err), err: err}
		case running && errors.Is(qctx.Err(), context.DeadlineExceeded):
			return &TimeoutError{Timeout: db.limits.Timeout, Running: true}
		case errors.Is(qctx.Err(), context.DeadlineExceeded), isStatementTimeout(err):
			return &TimeoutError{Timeout: db.limits.Timeout}
		}
		return err
	}
	qctx, cancel := context.WithTimeout(ctx, db.limits.Timeout)
	defer cancel()
	err := db.runSQLite(qctx, sql, args, columns, emit)
	if err != nil && ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Timeout: db.limits.Timeout}
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("query cancelled: %w", ctx.Err())
	}
	return err
}
