// Package sqlite is sqlmcp's SQLite engine: a file opened read-only in the
// engine (mode=ro, query_only, no ATTACH, untrusted schema, bounded
// values and heap), every statement compiled through guard's SQLite
// checks (the compiler and an authorizer) and stepped as compiled.
//
// It implements source.Engine; register it by listing Engine{} in
// source.Options.Engines.
package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime/cgo"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
)

// sqliteMaxValueBytes bounds any one string or BLOB the engine builds, so
// SELECT zeroblob(1e9) fails instead of taking a gigabyte. It is far above
// what an answer shows (--max-bytes), and small enough that work linear in
// a value's length ends within a fraction of a second, as does a LIKE or
// GLOB match (the text's length times the pattern limit).
const sqliteMaxValueBytes = 4 << 20

// sqliteConnHeap is what one connection may need of SQLite's heap: a few
// values at the length limit (an expression's operands and result, a
// sorter's row) and the page cache. SQLite's hard heap limit is this times
// the connections of every open database: a statement that needs more,
// such as a compile bomb of nested WITH levels, fails fast with an
// out-of-memory error instead of growing.
const sqliteConnHeap = 4*sqliteMaxValueBytes + 8<<20

// MemoryBound is the most memory sqlmcp's calls on SQLite databases
// can hold at once with conns connections (source.Options.MaxConns) under
// limits: SQLite's heap limit, conns times 4 values at the length limit
// plus 8 MiB, with a quarter more for the C allocator's own overhead; and
// per connection the Go side of one call: the rows kept
// (MaxBytes, about four times over as cells, JSON and text) and one row in
// flight of at most SQLITE_LIMIT_COLUMN cells of MaxCellBytes each.
func MemoryBound(limits sqlmcp.Limits, conns int) int64 {
	limits = limits.WithDefaults()
	perCall := 4*int64(limits.MaxBytes) + 2000*int64(limits.MaxCellBytes+64)
	return int64(conns) * (sqliteConnHeap*5/4 + perCall)
}

// sqliteLikePattern is the longest LIKE or GLOB pattern, in bytes (SQLite's
// default is 50000): a match, which SQLite does not interrupt, costs up to
// the text's length times the pattern's.
const sqliteLikePattern = 50

// sqliteLimits are the engine's limits on each connection, besides
// ATTACHED (0) and LENGTH. Each one bounds work SQLite does in one piece
// (parsing, compiling, a LIKE match) where it does not check for
// interrupts; ordinary SQL stays far inside them.
var sqliteLimits = []struct{ id, value int }{
	{sqlite3.SQLITE_LIMIT_EXPR_DEPTH, 500},      // default 1000
	{sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, 200}, // terms of a UNION; default 500
	{sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 100}, // ?NNN; default 32766
	{sqlite3.SQLITE_LIMIT_FUNCTION_ARG, 100},    // default 1000
	{sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, sqliteLikePattern},
	{sqlite3.SQLITE_LIMIT_COLUMN, 2000},     // the default, stated
	{sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH, 0}, // no triggers run on reads
}

// sqlitePath turns a --db value into a checked path to a SQLite file: a
// plain path, sqlite:PATH, sqlite://PATH or a file: URL (whose only
// parameter may be mode=ro: sqlmcp opens every database read-only).
func sqlitePath(dsn string) (string, error) {
	path := dsn
	switch {
	case strings.HasPrefix(dsn, "sqlite://"):
		path = strings.TrimPrefix(dsn, "sqlite://")
	case strings.HasPrefix(dsn, "sqlite:"):
		path = strings.TrimPrefix(dsn, "sqlite:")
	case strings.HasPrefix(dsn, "file:"):
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("reading the database URL %q: %w", dsn, err)
		}
		for k, v := range u.Query() {
			if k != "mode" || len(v) != 1 || v[0] != "ro" {
				return "", fmt.Errorf("the database URL parameter %q is not supported: sqlmcp always opens the file read-only", k)
			}
		}
		path = u.Opaque
		if path == "" {
			path = u.Path
		}
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
	}
	if path == "" {
		return "", errors.New("no database given: pass --db PATH (or --demo)")
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("no such database file: %s", path)
	case err != nil:
		return "", fmt.Errorf("opening %s: %w", path, err)
	case fi.IsDir():
		return "", fmt.Errorf("%s is a directory, not a SQLite database file", path)
	}
	if err := checkHeader(path); err != nil {
		return "", err
	}
	return filepath.Abs(path)
}

// checkHeader refuses a file that does not start like a SQLite database.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, []byte("SQLite format 3\x00")) {
		return fmt.Errorf("%s is not a SQLite database", path)
	}
	return nil
}

// openSQLite opens path read-only in the engine: mode=ro, query_only,
// extension loading off (go-sqlite3 leaves it off unless asked), no
// ATTACH, and untrusted schema. When guarded, every connection also gets the
// guard; only tests of the engine wall alone leave it off.
// Its connections, at most maxConns, add their share to SQLite's
// process-wide heap limit until the database is closed, and each
// temporary file they write is bounded (tempvfs.go).
func openSQLite(path string, guarded bool, maxConns int) (*sql.DB, error) {
	if err := boundTempFiles(); err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_query_only=1&_busy_timeout=5000"}
	c := &sqliteConnector{dsn: u.String(), guarded: guarded}
	c.release = reserveHeap(int64(maxConns) * sqliteConnHeap)
	return sql.OpenDB(c), nil
}

// sqliteConnector opens guarded SQLite connections without registering a
// driver name globally.
type sqliteConnector struct {
	dsn     string
	guarded bool
	drv     sqlite3.SQLiteDriver
	release func() // gives back the connector's share of the heap limit
}

// Close gives back the database's share of SQLite's heap limit; sql.DB
// calls it when closed.
func (c *sqliteConnector) Close() error {
	c.release()
	return nil
}

// sqliteConn is a driver connection with its guard. database/sql uses the
// embedded connection; the door reaches the guard through Conn.Raw.
type sqliteConn struct {
	*sqlite3.SQLiteConn
	guard *guard.SQLite
	auth  cgo.Handle // the authorizer RegisterContextAuthorizer installed
	stop  stopFlag   // raised by a call's Cancel (see stopFlag)
	kept  stmtCache  // statements judged under no policy, to run again
	mode  int8       // how policed last readied it: 0 not yet, 1 no policy, 2 a policy
}

func (c *sqliteConnector) Driver() driver.Driver { return &c.drv }

func (c *sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	conn := dc.(*sqlite3.SQLiteConn)
	conn.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	conn.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, sqliteMaxValueBytes)
	for _, l := range sqliteLimits {
		conn.SetLimit(l.id, l.value)
	}
	if err := linearFunctions(conn); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.Exec("PRAGMA trusted_schema = OFF", nil); err != nil {
		conn.Close()
		return nil, err
	}
	sc := &sqliteConn{SQLiteConn: conn}
	h, err := connHandle(conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	sc.stop = watchStop(h)
	if c.guarded {
		if sc.guard, err = guard.NewSQLite(sc); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return sc, nil
}

// prepare compiles sql through the guard, under the policy p (nil for
// none), or, on the unguarded connections of engine-wall tests, directly.
// It returns the result columns that carry masked values. With keep set
// (no policy is in force on the connection: see conn.Run), a statement
// kept from an earlier run of the very same text is taken instead; the
// caller hands the statement to done when the run ends.
func (c *sqliteConn) prepare(sql string, p guard.PolicyCatalog, keep bool) (*sqlite3.SQLiteStmt, []guard.MaskedColumn, error) {
	if keep && p == nil && c.guard != nil {
		if st := c.kept.take(sql); st != nil {
			c.guard.StepsUnpoliced()
			return st, nil, nil
		}
	}
	if c.guard != nil {
		st, masked, err := c.guard.PreparePolicy(sql, p)
		if err != nil {
			return nil, nil, err
		}
		return st.(*sqlite3.SQLiteStmt), masked, nil
	}
	if p != nil {
		return nil, nil, errors.New("a policy cannot be enforced on an unguarded connection")
	}
	st, err := c.SQLiteConn.Prepare(sql)
	if err != nil {
		return nil, nil, err
	}
	return st.(*sqlite3.SQLiteStmt), nil, nil
}

// done ends a run of st, compiled from sql: it is kept for the text's next
// run when keep was given to prepare and the run ended well, and closed
// otherwise.
func (c *sqliteConn) done(sql string, st *sqlite3.SQLiteStmt, keep bool, err error) {
	if keep && err == nil && c.guard != nil {
		c.kept.put(sql, st)
		return
	}
	st.Close()
}
