package guard_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// withWritableGuard runs f with the guard installed on a writable
// connection to a fresh fixture file: the guard must hold alone, without
// the read-only engine behind it.
func withWritableGuard(t *testing.T, f func(g *guard.SQLite, conn *sqlite3.SQLiteConn)) (path string) {
	t.Helper()
	path = dbtest.SQLiteFile(t)
	withGuardOn(t, path, f)
	return path
}

// withGuardOn runs f with the guard installed on a writable connection to
// the SQLite file at path.
func withGuardOn(t *testing.T, path string, f func(g *guard.SQLite, conn *sqlite3.SQLiteConn)) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*sqlite3.SQLiteConn)
		g, err := guard.NewSQLite(c)
		if err != nil {
			return err
		}
		f(g, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGuardAloneRefusesHostile(t *testing.T) {
	dir := t.TempDir()
	path := withWritableGuard(t, func(g *guard.SQLite, conn *sqlite3.SQLiteConn) {
		for _, c := range dbtest.HostileSQLite {
			t.Run(c.Name, func(t *testing.T) {
				st, err := g.Prepare(c.Expand(dir))
				if err == nil {
					st.Close()
					// An attack on the parser or the process may compile
					// (the engine's limits stop it); a write may not.
					if !c.Harmless {
						t.Fatalf("accepted %.80q", c.SQL)
					}
				}
			})
		}
	})
	dbtest.AssertEmptyDir(t, dir)
	// The fixture is rebuilt identically, so its digest is the baseline.
	if got, want := dbtest.Fingerprint(t, path), dbtest.Fingerprint(t, dbtest.SQLiteFile(t)); got != want {
		t.Errorf("the database file changed")
	}
}

func TestGuardAllowsReads(t *testing.T) {
	withWritableGuard(t, func(g *guard.SQLite, conn *sqlite3.SQLiteConn) {
		for _, c := range dbtest.AllowedSQLite {
			t.Run(c.Name, func(t *testing.T) {
				st, err := g.Prepare(c.SQL)
				if err != nil {
					t.Fatalf("refused %q: %v", c.SQL, err)
				}
				st.Close()
			})
		}
	})
}

func TestGuardMessages(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"DELETE FROM customers", `DELETE from table "customers" is not allowed. This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)`},
		{"SELECT 1; DROP TABLE customers", `found more than one statement; the second begins "DROP TABLE customers". Send exactly one statement per call`},
		{"PRAGMA table_info(customers)", "PRAGMA table_info is not allowed. Use the describe_table tool, or SELECT from a table-valued pragma function such as pragma_table_info('t')"},
		{"CREATE TEMP TABLE x(a)", "CREATE would change the database schema and is not allowed. This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)"},
		{"VACUUM", "VACUUM would change the database and is not allowed. This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)"},
		{"BEGIN", "BEGIN (transaction control) is not allowed. Every statement already runs on its own: send it without BEGIN, COMMIT or SAVEPOINT"},
		{"SELECT load_extension('x')", "the function load_extension() is not allowed. That function can load code or reach outside the database; write the query without it"},
		{"SELECT 1\x00; DELETE FROM customers", "the SQL contains a NUL byte. Remove the NUL (\\x00) character"},
		{"SELECT '\xff'", "the SQL is not valid UTF-8. Send the statement as UTF-8 text"},
		{"  -- nothing", "no SQL statement found. Send one SELECT statement"},
	}
	withWritableGuard(t, func(g *guard.SQLite, conn *sqlite3.SQLiteConn) {
		for _, tt := range tests {
			_, err := g.Prepare(tt.sql)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Prepare(%q)\n got: %v\nwant: %s", tt.sql, err, tt.want)
			}
		}
	})
}

// TestSQLiteWindowsBounded: a statement with more window functions than
// SQLite compiles quickly is refused before it compiles; OVER in a string,
// a quoted name or a comment does not count.
func TestSQLiteWindowsBounded(t *testing.T) {
	withWritableGuard(t, func(g *guard.SQLite, conn *sqlite3.SQLiteConn) {
		many := "SELECT count(*) OVER ()" + strings.Repeat(", count(*) OVER (PARTITION BY id + 1)", 250) + " FROM customers"
		_, err := g.Prepare(many)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "window functions") {
			t.Fatalf("250 window functions: %v, want the refusal", err)
		}
		quoted := "SELECT 'over over' AS \"over\", 1 AS [over], 2 AS `over` /* over over */, count(*) OVER ()" +
			strings.Repeat(", 'OVER'", 300) + " FROM customers -- over"
		st, err := g.Prepare(quoted)
		if err != nil {
			t.Fatalf("one window function among quoted OVERs: %v", err)
		}
		st.Close()
	})
}
