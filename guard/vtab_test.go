package guard_test

import (
	"database/sql"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// vtabFile is the fixture plus an FTS4 table and an R*Tree table, the two
// virtual-table modules go-sqlite3 builds in. Both run SQL of their own
// when a connection first touches them: FTS asks PRAGMA page_size, and
// R*Tree prepares the INSERT, UPDATE and DELETE statements it will need
// for writes.
func vtabFile(t *testing.T) string {
	t.Helper()
	path := dbtest.SQLiteFile(t)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE VIRTUAL TABLE notes USING fts4(body)",
		"INSERT INTO notes (body) VALUES ('alpha beta'), ('gamma delta')",
		"INSERT INTO notes (body) VALUES ('alpha gamma')", // a second segment, for optimize()
		"CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1)",
		"INSERT INTO boxes VALUES (1, 0, 1), (2, 5, 7)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// freshGuard opens a new writable connection to path with the guard on it.
func freshGuard(t *testing.T, path string) *guard.SQLite {
	t.Helper()
	dc, err := (&sqlite3.SQLiteDriver{}).Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	g, err := guard.NewSQLite(dc.(*sqlite3.SQLiteConn))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGuardReadsVirtualTables: reading a virtual table is a read, on a
// connection's first touch of it as on later ones, and the verdict does
// not change with the connection's history.
func TestGuardReadsVirtualTables(t *testing.T) {
	path := vtabFile(t)
	want := dbtest.Fingerprint(t, path)
	tests := []struct{ name, sql string }{
		{"fts4 match", "SELECT rowid FROM notes WHERE notes MATCH 'alpha'"},
		{"fts4 scan", "SELECT body FROM notes"},
		{"fts4 snippet", "SELECT snippet(notes) FROM notes WHERE notes MATCH 'gamma'"},
		{"rtree range", "SELECT id FROM boxes WHERE x0 >= 0 AND x1 <= 10"},
		{"rtree scan", "SELECT * FROM boxes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := freshGuard(t, path)
			for _, when := range []string{"first", "second"} {
				st, err := g.Prepare(tt.sql)
				if err != nil {
					t.Errorf("%s time on a fresh connection: Prepare(%q) refused: %v", when, tt.sql, err)
					continue
				}
				step(t, st.(*sqlite3.SQLiteStmt))
				st.Close()
			}
		})
	}
	if got := dbtest.Fingerprint(t, path); got != want {
		t.Error("the database file changed")
	}
}

// TestGuardVirtualTableWrites: functions a virtual table overloads can
// write through the module's own statements (FTS's optimize() merges
// segments); the guard must stop them whichever way, leaving the file.
func TestGuardVirtualTableWrites(t *testing.T) {
	path := vtabFile(t)
	want := dbtest.Fingerprint(t, path)
	dir := t.TempDir()
	tests := []struct{ name, sql string }{
		{"fts optimize function", "SELECT optimize(notes) FROM notes LIMIT 1"},
		{"fts optimize command", "INSERT INTO notes (notes) VALUES ('optimize')"},
		{"fts rebuild command", "INSERT INTO notes (notes) VALUES ('rebuild')"},
		{"rtree insert", "INSERT INTO boxes VALUES (3, 1, 2)"},
		{"rtree delete", "DELETE FROM boxes"},
		{"rtreecheck", "SELECT rtreecheck('boxes')"},
		{"fts3_tokenizer", "SELECT fts3_tokenizer('simple')"},
		{"attach", "ATTACH '" + dir + "/x.db' AS x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := freshGuard(t, path)
			// Twice: the first touch of a virtual table connects it.
			for range 2 {
				if st, err := g.Prepare(tt.sql); err == nil {
					step(t, st.(*sqlite3.SQLiteStmt))
					st.Close()
				}
			}
			if got := dbtest.Fingerprint(t, path); got != want {
				t.Fatalf("%q changed the database file", tt.sql)
			}
		})
	}
	dbtest.AssertEmptyDir(t, dir)
}
