package source

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
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
)

// sqliteMaxValueBytes bounds any one string or BLOB the engine builds, so
// SELECT zeroblob(1e9) fails instead of taking a gigabyte.
const sqliteMaxValueBytes = 64 << 20

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
func openSQLite(path string, guarded bool) (*sql.DB, error) {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_query_only=1&_busy_timeout=5000"}
	return sql.OpenDB(&sqliteConnector{dsn: u.String(), guarded: guarded}), nil
}

// sqliteConnector opens guarded SQLite connections without registering a
// driver name globally.
type sqliteConnector struct {
	dsn     string
	guarded bool
	drv     sqlite3.SQLiteDriver
}

// sqliteConn is a driver connection with its guard. database/sql uses the
// embedded connection; the door reaches the guard through Conn.Raw.
type sqliteConn struct {
	*sqlite3.SQLiteConn
	guard *guard.SQLite
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
	if _, err := conn.Exec("PRAGMA trusted_schema = OFF", nil); err != nil {
		conn.Close()
		return nil, err
	}
	sc := &sqliteConn{SQLiteConn: conn}
	if c.guarded {
		if sc.guard, err = guard.NewSQLite(conn); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return sc, nil
}

// runSQLite prepares sql through the guard and steps the very statement
// the guard judged.
func (db *DB) runSQLite(ctx context.Context, sql string, args []any, columns func([]Column), emit func([]any) bool) error {
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c := dc.(*sqliteConn)
		st, err := c.prepare(sql)
		if err != nil {
			return err
		}
		defer st.Close()
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		dr, err := st.QueryContext(ctx, named)
		if err != nil {
			return err
		}
		rows := dr.(*sqlite3.SQLiteRows)
		defer rows.Close()
		// go-sqlite3 turns values of columns declared DATE, DATETIME,
		// TIMESTAMP or BOOLEAN into time.Time and bool, losing what is
		// stored ('N/A' becomes the zero time). DeclTypes returns the
		// rows' own slice, so blanking it keeps the stored values.
		decl := rows.DeclTypes()
		if columns != nil {
			cols := make([]Column, len(decl))
			for i, name := range rows.Columns() {
				cols[i] = Column{Name: name, Type: strings.ToUpper(decl[i])}
			}
			columns(cols)
		}
		for i := range decl {
			decl[i] = ""
		}
		dest := make([]driver.Value, len(decl))
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			row := make([]any, len(dest))
			for i, v := range dest {
				row[i] = v
			}
			if !emit(row) {
				return nil
			}
		}
	})
}

// prepare compiles sql through the guard, or, on the unguarded connections
// of engine-wall tests, directly.
func (c *sqliteConn) prepare(sql string) (*sqlite3.SQLiteStmt, error) {
	if c.guard != nil {
		return c.guard.Prepare(sql)
	}
	st, err := c.SQLiteConn.Prepare(sql)
	if err != nil {
		return nil, err
	}
	return st.(*sqlite3.SQLiteStmt), nil
}
